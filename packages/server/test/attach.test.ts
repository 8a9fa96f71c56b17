import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  type CallToolResult,
  CreateMessageRequestSchema,
  LoggingMessageNotificationSchema,
  type McpError,
  type Progress,
} from "@modelcontextprotocol/sdk/types.js";
import { definePack, defineResource, defineResourceTemplate } from "@toolshed/schema";
import { captureLogger, resultText } from "@toolshed/test-support";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { attachPack, createLogger } from "../src/index.js";
import { crmPack, FakeCrm, miscPack, notesPack } from "./fixtures.js";
import { ContextProbe, contextPack, docsPack, META, TICKET_IDS } from "./more-fixtures.js";

let mcp: McpServer;
let client: Client;
const crm = new FakeCrm();
const logs = captureLogger(createLogger);

async function connectTo(server: McpServer, capabilities: Record<string, unknown> = {}): Promise<Client> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const c = new Client({ name: "attach-test", version: "0.0.0" }, { capabilities });
  await c.connect(clientTransport);
  return c;
}

// One McpServer for the file: attaching a pack whose prompts have completers twice throws (see the
// last describe), so the packs are mounted once and every test shares the connection.
beforeAll(async () => {
  mcp = new McpServer({ name: "plain", version: "1.0.0" }, { capabilities: { logging: {} } });
  for (const pack of [notesPack, crmPack(crm), miscPack, docsPack, contextPack(new ContextProbe())]) {
    attachPack(mcp, pack, { logger: logs.logger });
  }
  client = await connectTo(mcp);
});

afterAll(async () => {
  await client.close();
  await mcp.close();
});

beforeEach(() => {
  const fresh = new FakeCrm();
  crm.accounts = fresh.accounts;
  crm.latencyMs = 0;
});

async function call(name: string, args: Record<string, unknown> = {}, c = client): Promise<CallToolResult> {
  return (await c.callTool({ name, arguments: args })) as CallToolResult;
}

describe("attachPack: tools", () => {
  it("lists the tools with their input schema, title, annotations and output schema", async () => {
    const { tools } = await client.listTools();
    const search = tools.find((t) => t.name === "crm_search_accounts");
    expect(search?.description).toBe("Search CRM accounts by name/keyword, optionally filtered by tier and ARR range.");
    expect(search?.inputSchema).toMatchObject({
      type: "object",
      properties: {
        query: { type: "string", minLength: 2, maxLength: 200, description: "Name or keyword" },
        tier: { type: "string", enum: ["startup", "growth", "enterprise"], description: "Filter by tier" },
        min_arr: { type: "number", minimum: 0, default: 0, description: "Lowest ARR in dollars" },
        max_arr: { type: "number", minimum: 0, description: "Highest ARR in dollars" },
      },
      required: ["query"],
    });
    expect(search?.annotations).toEqual({ readOnlyHint: true });
    const three = tools.find((t) => t.name === "three");
    expect(three?.outputSchema).toMatchObject({
      type: "object",
      properties: { result: { type: "number" } },
      required: ["result"],
    });
    expect(tools.map((t) => t.name)).toEqual([
      "get_note",
      "crm_search_accounts",
      "crm_get_account",
      "crm_bulk_update_tier",
      "three",
      "echo_text",
      "leaky",
      "bad_output",
      "picture",
      "upstream",
      "slow",
      "backend_timeout",
      "count_up",
      "wait_for_cancel",
      "ask_model",
      "ask_user",
      "whoami",
    ]);
  });

  it("C1: an object result is structuredContent plus the same value as 2-space JSON text", async () => {
    const result = await call("get_note", { title: "groceries" });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ title: "groceries", body: "milk, eggs", words: 2 });
    expect(result.content).toEqual([
      { type: "text", text: JSON.stringify({ title: "groceries", body: "milk, eggs", words: 2 }, null, 2) },
    ]);
  });

  it("C2: non-object results are wrapped as {result}", async () => {
    const three = await call("three");
    expect(three.structuredContent).toEqual({ result: 3 });
    expect(three.content).toEqual([{ type: "text", text: "3" }]);
    const echoed = await call("echo_text", { text: "hello" });
    expect(echoed.structuredContent).toEqual({ result: "hello" });
    expect(resultText(echoed)).toBe("hello");
  });

  it("C3: output that breaks the schema is masked, never sent", async () => {
    const result = await call("bad_output");
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(resultText(result)).toMatch(/^Error executing tool bad_output \(ref [0-9a-f]{8}\)$/);
    expect(JSON.stringify(result)).not.toContain("many");
  });

  it("C8/C9: a ToolError is 'Error executing tool <name>: <message>' with its error class", async () => {
    const result = await call("get_note", { title: "nope" });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toBe("Error executing tool get_note: No note 'nope'. Known titles: groceries, todo");
    expect(result._meta?.[META]).toEqual({ kind: "tool", code: "not_found", retryable: false });
    expect(result.structuredContent).toBeUndefined();
  });

  it("C9: a tool's timeout is a retryable timeout", async () => {
    crm.latencyMs = 1000;
    const result = await call("crm_get_account", { account_id: "acc_1" });
    expect(resultText(result)).toBe(
      "Error executing tool crm_get_account: timed out after 100 ms; temporary failure, safe to retry",
    );
    expect(result._meta?.[META]).toEqual({ kind: "tool", code: "timeout", retryable: true });
  });

  it("C7: a throwing handler is masked; no secret on the wire; logged with the ref", async () => {
    const result = await call("leaky");
    const wire = JSON.stringify(result);
    expect(resultText(result)).toMatch(/^Error executing tool leaky \(ref [0-9a-f]{8}\)$/);
    for (const secret of ["hunter2", "/srv/app", "secret.ts", "Error:"]) expect(wire).not.toContain(secret);
    const meta = result._meta?.[META] as { ref: string };
    expect(meta).toEqual({ kind: "internal", code: "internal_error", retryable: false, ref: meta.ref });
    expect(JSON.stringify(logs.lines.find((l) => l.ref === meta.ref))).toContain("db password hunter2");
  });

  it("C11: partial success is not an error and lists every failure", async () => {
    const result = await call("crm_bulk_update_tier", { account_ids: ["acc_1", "acc_9", "acc_3"], new_tier: "growth" });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      succeeded_count: 1,
      failed_count: 2,
      succeeded: ["acc_1"],
      failed: [
        { id: "acc_9", reason: "not_found", message: "No account 'acc_9'", retryable: false },
        { id: "acc_3", reason: "failed_precondition", message: "Account 'acc_3' is archived", retryable: false },
      ],
    });
    expect(resultText(result).split("\n")[0]).toBe("1 of 3 items succeeded, 2 failed.");
    expect(crm.accounts.get("acc_1")?.tier).toBe("growth");
  });

  it("C11: all failed is isError with the same structured content", async () => {
    const result = await call("crm_bulk_update_tier", { account_ids: ["acc_9"], new_tier: "growth" });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({
      succeeded_count: 0,
      failed_count: 1,
      succeeded: [],
      failed: [{ id: "acc_9", reason: "not_found", message: "No account 'acc_9'", retryable: false }],
    });
    // Every item failed for one reason, so that reason is the batch's code.
    expect(result._meta?.[META]).toEqual({ kind: "tool", code: "not_found", retryable: false });
  });

  it("progress and ctx.log reach the client; the McpServer's setLevel filters logs", async () => {
    const messages: string[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      messages.push(`${n.params.level} ${n.params.logger} ${JSON.stringify(n.params.data)}`);
    });
    const seen: Progress[] = [];
    await client.setLoggingLevel("warning");
    await client.callTool({ name: "count_up", arguments: { to: 2 } }, undefined, { onprogress: (p) => seen.push(p) });
    expect(seen).toEqual([
      { progress: 1, total: 2, message: "step 1" },
      { progress: 2, total: 2, message: "step 2" },
    ]);
    expect(messages).toEqual(['warning count_up {"step":2}']);
  });

  it("sampling works through the McpServer when the client declares it", async () => {
    const c = await connectSecond({ sampling: {} });
    c.setRequestHandler(CreateMessageRequestSchema, async () => ({
      role: "assistant",
      content: { type: "text", text: "four" },
      model: "m1",
    }));
    expect((await call("ask_model", { question: "2+2?" }, c)).structuredContent).toEqual({ result: "m1: four" });
    await c.close();
  });

  it("sampling without the client capability is the same failed_precondition tool error as createServer's", async () => {
    const result = await call("ask_model", { question: "2+2?" });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toBe(
      "Error executing tool ask_model: this client does not support sampling, so the tool cannot ask its model",
    );
    expect(result._meta?.[META]).toEqual({ kind: "tool", code: "failed_precondition", retryable: false });
  });

  it("elicitation without the client capability is the same failed_precondition tool error as createServer's", async () => {
    const result = await call("ask_user");
    expect(result.isError).toBe(true);
    expect(resultText(result)).toBe(
      "Error executing tool ask_user: this client does not support elicitation, so the tool cannot ask the user",
    );
    expect(result._meta?.[META]).toEqual({ kind: "tool", code: "failed_precondition", retryable: false });
  });

  it("the handler's context carries the request id", async () => {
    expect((await call("whoami")).structuredContent).toEqual({ clientId: null, scopes: [], hasRequestId: true });
  });

  it("lax coercion: numeric strings, an enum in another case and a camelCase name are taken, logged; off with coerce: false", async () => {
    const sent = { query: "Acme", tier: "Growth", minArr: "100", max_arr: "2000000" };
    const meant = { query: "Acme", tier: "growth", min_arr: 100, max_arr: 2000000 };
    const before = logs.lines.length;
    const coerced = await call("crm_search_accounts", sent);
    expect(coerced.isError).toBeFalsy();
    expect(coerced.structuredContent).toEqual((await call("crm_search_accounts", meant)).structuredContent);
    expect(logs.lines.slice(before).find((l) => l.msg === "arguments coerced")).toMatchObject({
      tool: "crm_search_accounts",
      coerced: [
        { path: "min_arr", kind: "argument_name", from: "minArr" },
        { path: "tier", kind: "enum_case", from: "string" },
        { path: "min_arr", kind: "number", from: "string" },
        { path: "max_arr", kind: "number", from: "string" },
      ],
    });
    // Never where it would change the meaning.
    expect(resultText(await call("crm_search_accounts", { query: "Acme", min_arr: "" }))).toBe(
      'Invalid arguments for tool crm_search_accounts:\nmin_arr: must be a number (got "")',
    );

    const strict = new McpServer({ name: "strict", version: "1.0.0" });
    attachPack(strict, crmPack(crm), { logger: logs.logger, coerce: false });
    const strictClient = await connectTo(strict);
    expect(resultText(await call("crm_search_accounts", { query: "Acme", min_arr: "100" }, strictClient))).toBe(
      'Invalid arguments for tool crm_search_accounts:\nmin_arr: must be a number (got "100")',
    );
    await strictClient.close();
    await strict.close();
  });
});

/** A second McpServer for a client with other capabilities; contextPack has no prompts, so it attaches again. */
async function connectSecond(capabilities: Record<string, unknown>): Promise<Client> {
  const second = new McpServer({ name: "plain2", version: "1.0.0" });
  attachPack(second, contextPack(new ContextProbe()), { logger: logs.logger });
  return connectTo(second, capabilities);
}

describe("attachPack: resources, prompts, completion", () => {
  it("lists static resources and what templates list", async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual([
      "config://app",
      "logo://small",
      "multi://parts",
      "gone://doc",
      "secret://boom",
      "busy://db",
      "picky://doc",
      "ticket://101",
      "ticket://102",
    ]);
    expect(resources.find((r) => r.uri === "config://app")).toEqual({
      uri: "config://app",
      name: "app_config",
      title: "App config",
      description: "The app's settings as JSON",
      mimeType: "application/json",
    });
    expect(resources.find((r) => r.uri === "ticket://102")?.mimeType).toBe("text/plain");
  });

  it("lists templates", async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toEqual([
      {
        name: "note",
        uriTemplate: "note://{title}",
        description: "A note's body as markdown",
        mimeType: "text/markdown",
      },
      {
        name: "ticket",
        uriTemplate: "ticket://{id}",
        title: "Ticket",
        description: "One support ticket as JSON",
        mimeType: "application/json",
      },
    ]);
  });

  it("reads a template URI and a static blob resource", async () => {
    expect(await client.readResource({ uri: "note://groceries" })).toEqual({
      contents: [{ uri: "note://groceries", mimeType: "text/markdown", text: "milk, eggs" }],
    });
    expect(await client.readResource({ uri: "logo://small" })).toEqual({
      contents: [{ uri: "logo://small", mimeType: "image/png", blob: "iVBORw0KGgo=" }],
    });
  });

  it("read failures are the runtime's: NotFoundError -32002, a plain Error masked -32603", async () => {
    const gone = (await client.readResource({ uri: "note://nope" }).catch((e: unknown) => e)) as McpError;
    expect(gone.code).toBe(-32002);
    expect(gone.message).toBe("MCP error -32002: No note 'nope'");
    const boom = (await client.readResource({ uri: "secret://boom" }).catch((e: unknown) => e)) as McpError;
    expect(boom.code).toBe(-32603);
    expect(boom.message).toMatch(/^MCP error -32603: Internal error \(ref [0-9a-f]{8}\)$/);
    expect(JSON.stringify(boom)).not.toContain("hunter2");
  });

  it("lists prompts and renders one", async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts).toEqual([
      {
        name: "summarize_note",
        description: "Ask the model to summarize one note",
        arguments: [{ name: "title", description: "Title of the note to summarize", required: true }],
      },
    ]);
    expect(await client.getPrompt({ name: "summarize_note", arguments: { title: "todo" } })).toEqual({
      description: "Ask the model to summarize one note",
      messages: [{ role: "user", content: { type: "text", text: "Summarize the note 'todo':\n\ncall mom" } }],
    });
  });

  it("completes a prompt argument and a template variable", async () => {
    expect(
      await client.complete({
        ref: { type: "ref/prompt", name: "summarize_note" },
        argument: { name: "title", value: "g" },
      }),
    ).toEqual({ completion: { values: ["groceries"], total: 1, hasMore: false } });
    expect(
      await client.complete({
        ref: { type: "ref/resource", uri: "ticket://{id}" },
        argument: { name: "id", value: "24" },
      }),
    ).toEqual({
      completion: {
        values: ["240", "241", "242", "243", "244", "245", "246", "247", "248", "249"],
        total: 10,
        hasMore: false,
      },
    });
  });

  it("more than 100 completions: 100 values, the real total, and hasMore", async () => {
    const ids = await client.complete({
      ref: { type: "ref/resource", uri: "ticket://{id}" },
      argument: { name: "id", value: "" },
    });
    expect(ids.completion).toEqual({ values: TICKET_IDS.slice(0, 100), total: 150, hasMore: true });
  });
});

describe("attachPack: known differences from createServer (the McpServer owns these)", () => {
  // C6 holds on 1.x too: see validation-texts.test.ts.
  it("C12 differs: an unknown tool is an isError result, not JSON-RPC -32602, naming the closest tools as createServer does", async () => {
    const result = await call("get_notes");
    expect(result).toEqual({ content: [{ type: "text", text: expect.any(String) }], isError: true });
    expect((result.content as { text: string }[])[0]?.text).toMatch(
      /^Unknown tool: get_notes\. Closest tools: get_note, [a-z_]+, [a-z_]+$/,
    );
  });

  it("C5 differs only by the SDK's draft-07 $schema key on createServer's schemas", async () => {
    const { tools } = await client.listTools();
    const note = tools.find((t) => t.name === "get_note");
    expect(note?.inputSchema).toEqual({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { title: { type: "string", description: "Exact title of the note" } },
      required: ["title"],
      additionalProperties: false,
    });
  });

  it("an unknown resource URI is the SDK's -32602, not -32002", async () => {
    const error = (await client.readResource({ uri: "nope://x" }).catch((e: unknown) => e)) as McpError;
    expect(error.code).toBe(-32602);
    expect(error.message).toContain("Resource nope://x not found");
  });
});

describe("attachPack: resources/list", () => {
  it("lists each resource once, also when a static URI fits a template", async () => {
    const configPack = definePack({
      name: "config",
      resources: [
        defineResource({ uri: "config://app", name: "app", description: "The app's config", read: () => "{}" }),
        defineResourceTemplate({
          uriTemplate: "config://{name}",
          name: "config",
          description: "Any config by name",
          params: z.object({ name: z.string().describe("Config name") }),
          list: () => [{ uri: "config://db", name: "db" }],
          read: ({ name }) => name,
        }),
      ],
    });
    const server = new McpServer({ name: "cfg", version: "1.0.0" });
    attachPack(server, configPack, { logger: logs.logger });
    const c = await connectTo(server);
    const { resources } = await c.listResources();
    expect(resources.map((r) => r.uri)).toEqual(["config://app", "config://db"]);
    await c.close();
    await server.close();
  });
});

describe("attachPack: template list handlers", () => {
  it("each template's list handler runs once per resources/list", async () => {
    const calls = { a: 0, b: 0 };
    const twoLists = definePack({
      name: "two_lists",
      resources: (["a", "b"] as const).map((k) =>
        defineResourceTemplate({
          uriTemplate: `${k}://{id}`,
          name: `tpl_${k}`,
          description: `Items of kind ${k}`,
          params: z.object({ id: z.string().describe("Item id") }),
          list: () => {
            calls[k]++;
            return [{ uri: `${k}://1`, name: `${k} 1` }];
          },
          read: ({ id }) => id,
        }),
      ),
    });
    const server = new McpServer({ name: "lists", version: "1.0.0" });
    attachPack(server, twoLists, { logger: logs.logger });
    const c = await connectTo(server);
    const { resources } = await c.listResources();
    expect(resources.map((r) => r.uri)).toEqual(["a://1", "b://1"]);
    expect(calls).toEqual({ a: 1, b: 1 });
    await c.close();
    await server.close();
  });
});

describe("attachPack: one pack on several McpServers", () => {
  it("the same pack can be attached to a second McpServer (one per connection), prompt completion included", async () => {
    const second = new McpServer({ name: "per-connection", version: "1.0.0" });
    expect(() => attachPack(second, notesPack, { logger: logs.logger })).not.toThrow();
    const c = await connectTo(second);
    expect(
      await c.complete({
        ref: { type: "ref/prompt", name: "summarize_note" },
        argument: { name: "title", value: "t" },
      }),
    ).toEqual({ completion: { values: ["todo"], total: 1, hasMore: false } });
    expect(
      await client.complete({
        ref: { type: "ref/prompt", name: "summarize_note" },
        argument: { name: "title", value: "t" },
      }),
    ).toEqual({ completion: { values: ["todo"], total: 1, hasMore: false } });
    await c.close();
    await second.close();
  });
});
