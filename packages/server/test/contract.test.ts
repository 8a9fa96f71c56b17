import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { type CallToolResult, McpError } from "@modelcontextprotocol/sdk/types.js";
import { DefinitionError, definePack, defineTool } from "@toolshed/schema";
import { captureLogger, resultText } from "@toolshed/test-support";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { connectInMemory, createLogger, createServer, type ToolshedServer } from "../src/index.js";
import { crmPack, FakeCrm, miscPack, notesPack, ticketsPack } from "./fixtures.js";
import { rawConnection } from "./raw.js";

const META = "toolshed.dev/error";

let crm: FakeCrm;
let server: ToolshedServer;
let client: Client;
let logs: ReturnType<typeof captureLogger>;

async function callOn(c: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await c.callTool({ name, arguments: args })) as CallToolResult;
}

async function call(name: string, args: Record<string, unknown> = {}) {
  return callOn(client, name, args);
}

beforeEach(async () => {
  crm = new FakeCrm();
  logs = captureLogger(createLogger);
  server = createServer({
    name: "parity",
    version: "1.0.0",
    packs: [notesPack, ticketsPack, crmPack(crm), miscPack],
    logger: logs.logger,
  });
  client = await connectInMemory(server);
});

afterEach(async () => {
  await client.close();
  await server.close();
});

describe("C1 object output", () => {
  it("C1: get_note returns structuredContent and the same value as 2-space JSON text", async () => {
    const result = await call("get_note", { title: "groceries" });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ title: "groceries", body: "milk, eggs", words: 2 });
    expect(result.content).toEqual([
      { type: "text", text: JSON.stringify({ title: "groceries", body: "milk, eggs", words: 2 }, null, 2) },
    ]);
  });

  it("C1: compact text by option", async () => {
    const compact = createServer({
      name: "c",
      version: "1",
      packs: [notesPack],
      textFormat: "compact",
      logger: logs.logger,
    });
    const c = await connectInMemory(compact);
    const result = await callOn(c, "get_note", { title: "groceries" });
    expect(resultText(result)).toBe('{"title":"groceries","body":"milk, eggs","words":2}');
    await c.close();
    await compact.close();
  });
});

describe("C2 non-object output is wrapped", () => {
  it("C2: () => 3 gives {result: 3} and text 3, with a wrapped output schema", async () => {
    const { tools } = await client.listTools();
    const three = tools.find((t) => t.name === "three");
    expect(three?.outputSchema).toEqual({
      type: "object",
      properties: { result: { type: "number" } },
      required: ["result"],
    });
    const result = await call("three");
    expect(result.structuredContent).toEqual({ result: 3 });
    expect(result.content).toEqual([{ type: "text", text: "3" }]);
  });

  it("C2: a string result is its own text; an array is JSON", async () => {
    const echoed = await call("echo_text", { text: "hello" });
    expect(echoed.structuredContent).toEqual({ result: "hello" });
    expect(resultText(echoed)).toBe("hello");
    const found = await call("search_tickets", { query: "login" });
    expect(found.structuredContent).toEqual({ result: ["#101 login (open)"] });
    expect(JSON.parse(resultText(found))).toEqual(["#101 login (open)"]);
  });
});

describe("C3 output is checked", () => {
  it("C3: output that breaks the schema is never sent; it is a masked server fault", async () => {
    const result = await call("bad_output");
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(resultText(result)).toMatch(/^Error executing tool bad_output \(ref [0-9a-f]{8}\)$/);
    expect(JSON.stringify(result)).not.toContain("many");
    const ref = (result._meta?.[META] as { ref?: string } | undefined)?.ref;
    expect(
      logs.lines.some((l) => l.ref === ref && JSON.stringify(l).includes("does not match its output schema")),
    ).toBe(true);
  });
});

describe("C4 escape hatch", () => {
  it("C4: a full result with an image and a resource link is passed through", async () => {
    const result = await call("picture");
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([
      { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
      { type: "resource_link", uri: "note://groceries", name: "groceries" },
    ]);
  });
});

describe("C5 schemas come from Zod", () => {
  it("C5: search_tickets publishes the seed lesson's schema, portable (no $schema)", async () => {
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === "search_tickets");
    expect(tool?.title).toBe("Search tickets");
    expect(tool?.description).toBe("Search support tickets. Use before creating a ticket to avoid duplicates.");
    expect(tool?.inputSchema).toEqual({
      type: "object",
      properties: {
        query: { type: "string", description: "Words to match in title or body" },
        status: {
          type: "string",
          enum: ["open", "closed", "any"],
          default: "open",
          description: "Ticket status to match",
        },
        limit: { type: "integer", minimum: 1, maximum: 50, default: 10, description: "Most tickets to return" },
      },
      required: ["query"],
      additionalProperties: false,
    });
    expect(JSON.stringify(tools)).not.toContain("$schema");
  });

  it("C5: defaults apply and object-level rules run on every call", async () => {
    const ok = await call("crm_search_accounts", { query: "Acme" });
    expect(ok.structuredContent).toEqual({ count: 1, accounts: [{ id: "acc_1", name: "Acme" }] });
    for (let i = 0; i < 3; i++) {
      const bad = await call("crm_search_accounts", { query: "Acme", min_arr: 100, max_arr: 5 });
      expect(bad.isError).toBe(true);
    }
  });
});

describe("C6 invalid arguments", () => {
  it("C6: limit out of range and a bad enum value, one hint line each", async () => {
    const result = await call("search_tickets", { query: "x", status: "pending", limit: 999 });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toBe(
      [
        "Invalid arguments for tool search_tickets:",
        'status: must be one of "open", "closed", "any" (got "pending")',
        "limit: must be at most 50 (got 999)",
      ].join("\n"),
    );
    expect(result._meta?.[META]).toEqual({
      kind: "validation",
      code: "invalid_arguments",
      retryable: false,
      issues: [
        { path: "status", message: 'must be one of "open", "closed", "any" (got "pending")' },
        { path: "limit", message: "must be at most 50 (got 999)" },
      ],
    });
    expect(result.structuredContent).toBeUndefined();
  });

  it("C6: cross-field rule max_arr >= min_arr names max_arr", async () => {
    const result = await call("crm_search_accounts", { query: "Acme", min_arr: 100, max_arr: 5 });
    expect(resultText(result)).toBe(
      "Invalid arguments for tool crm_search_accounts:\nmax_arr: must be greater than or equal to min_arr",
    );
  });

  it("C6: missing and unknown arguments are hints that list what works", async () => {
    const result = await call("search_tickets", { qeury: "login" });
    expect(resultText(result)).toBe(
      [
        "Invalid arguments for tool search_tickets:",
        'qeury: unknown argument; did you mean "query"? Valid arguments: query, status, limit',
        "query: is required (a string)",
      ].join("\n"),
    );
  });

  it("C6: handlers that fail validation are never called", async () => {
    let calls = 0;
    const spy = definePack({
      name: "spy",
      tools: [
        defineTool({
          name: "spy",
          description: "Counts calls.",
          input: z.object({ n: z.number().int().max(5).describe("A small number") }),
          handler: () => {
            calls++;
            return "called";
          },
        }),
      ],
    });
    const s = createServer({ name: "s", version: "1", packs: [spy], logger: logs.logger });
    const c = await connectInMemory(s);
    // "1.5" is read as 1.5 (lax coercion), which is still not an integer.
    for (const args of [{ n: 6 }, { n: "1.5" }, { n: "one" }, {}, { n: 1, extra: true }, { n: 1.5 }]) {
      const r = await callOn(c, "spy", args);
      expect(r.isError).toBe(true);
    }
    expect(calls).toBe(0);
    expect(resultText(await callOn(c, "spy", { n: 1 }))).toBe("called");
    expect(calls).toBe(1);
    await c.close();
    await s.close();
  });
});

describe("C7 unexpected exceptions are masked", () => {
  it("C7: no trace of the exception reaches the client; the log has it under the same ref", async () => {
    const result = await call("leaky");
    const wire = JSON.stringify(result);
    expect(resultText(result)).toMatch(/^Error executing tool leaky \(ref [0-9a-f]{8}\)$/);
    for (const secret of ["hunter2", "/srv/app", "secret.ts", "at ", "Error:"]) expect(wire).not.toContain(secret);
    const meta = result._meta?.[META] as { kind: string; code: string; retryable: boolean; ref: string };
    expect(meta).toEqual({ kind: "internal", code: "internal_error", retryable: false, ref: meta.ref });
    expect(resultText(result)).toContain(meta.ref);
    const logged = logs.lines.find((l) => l.ref === meta.ref && l.level === 50);
    expect(JSON.stringify(logged)).toContain("db password hunter2");
  });
});

describe("C8 tool errors reach the model", () => {
  it("C8: get_note('nope') says what was wrong and what would work", async () => {
    const result = await call("get_note", { title: "nope" });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toBe("Error executing tool get_note: No note 'nope'. Known titles: groceries, todo");
    expect(result.structuredContent).toBeUndefined();
  });
});

describe("C9 machine-readable error class", () => {
  it("C9: a missing account is not_found and not retryable", async () => {
    const result = await call("crm_get_account", { account_id: "acc_404" });
    expect(resultText(result)).toBe("Error executing tool crm_get_account: No account found with id 'acc_404'");
    expect(result._meta?.[META]).toEqual({ kind: "tool", code: "not_found", retryable: false });
  });

  it("C9: a backend timeout is retryable and its text ends with the retry hint", async () => {
    const result = await call("backend_timeout");
    expect(resultText(result)).toBe(
      "Error executing tool backend_timeout: the CRM did not answer within 5 s; temporary failure, safe to retry",
    );
    expect(result._meta?.[META]).toEqual({ kind: "tool", code: "timeout", retryable: true });
  });

  it("C9: a tool's timeout aborts the handler and is a retryable timeout", async () => {
    crm.latencyMs = 1000;
    const started = Date.now();
    const result = await call("crm_get_account", { account_id: "acc_1" });
    expect(Date.now() - started).toBeLessThan(900);
    expect(resultText(result)).toBe(
      "Error executing tool crm_get_account: timed out after 100 ms; temporary failure, safe to retry",
    );
    expect(result._meta?.[META]).toEqual({ kind: "tool", code: "timeout", retryable: true });
  });

  it("C9: the server-wide timeout applies to tools without their own", async () => {
    const s = createServer({ name: "t", version: "1", packs: [crmPack(crm)], timeoutMs: 30, logger: logs.logger });
    const c = await connectInMemory(s);
    crm.latencyMs = 50;
    // crm_get_account sets 100 ms itself, which wins over the server's 30 ms.
    const own = await callOn(c, "crm_get_account", { account_id: "acc_1" });
    expect(own.isError).toBeFalsy();
    await c.close();
    await s.close();
  });
});

describe("C10 classification of common failures", () => {
  it.each([
    [429, "rate_limited", true, "the upstream service is rate limiting requests (HTTP 429)"],
    [503, "unavailable", true, "the upstream service is unavailable (HTTP 503)"],
    [504, "timeout", true, "the upstream service timed out (HTTP 504)"],
    [404, "not_found", false, "the upstream service has no such resource (HTTP 404)"],
    [403, "permission_denied", false, "the upstream service refused access (HTTP 403)"],
  ])("C10: HTTP %i is %s (retryable %s)", async (status, code, retryable, message) => {
    const result = await call("upstream", { status });
    const meta = result._meta?.[META] as Record<string, unknown>;
    expect(meta.code).toBe(code);
    expect(meta.retryable).toBe(retryable);
    if (retryable) expect(meta.retryAfterMs).toBe(3000);
    expect(resultText(result)).toContain(`Error executing tool upstream: ${message} (ref ${meta.ref})`);
    if (retryable) expect(resultText(result)).toMatch(/; temporary failure, safe to retry after 3 s$/);
    expect(JSON.stringify(result)).not.toContain("secret-token-xyz");
  });

  it("C10: an unknown HTTP status is internal and masked", async () => {
    const result = await call("upstream", { status: 418 });
    expect((result._meta?.[META] as { kind?: string } | undefined)?.kind).toBe("internal");
    expect(resultText(result)).toMatch(/^Error executing tool upstream \(ref [0-9a-f]{8}\)$/);
  });
});

describe("C11 partial success", () => {
  it("C11: some failed is not an error; every failure is listed with its reason", async () => {
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

  it("C11: all failed is isError with the same structured content; masked items leak nothing", async () => {
    crm.accounts.set("acc_boom", { id: "acc_boom", name: "Boom", tier: "startup", arr: 1 });
    const result = await call("crm_bulk_update_tier", { account_ids: ["acc_9", "acc_boom"], new_tier: "growth" });
    expect(result.isError).toBe(true);
    const sc = result.structuredContent as { failed_count: number; failed: Array<{ reason: string; message: string }> };
    expect(sc.failed_count).toBe(2);
    expect(sc.failed[1]?.reason).toBe("internal_error");
    expect(sc.failed[1]?.message).toMatch(/^internal error \(ref [0-9a-f]{8}\)$/);
    expect(JSON.stringify(result)).not.toContain("hunter2");
    expect(result._meta?.[META]).toEqual({ kind: "tool", code: "partial_failure", retryable: false });
  });
});

describe("C12 protocol errors", () => {
  it("C12: an unknown tool is JSON-RPC -32602 'Unknown tool: <name>' with the closest names", async () => {
    const error = await call("nope_tool").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
    expect((error as McpError).message).toBe(
      "MCP error -32602: Unknown tool: nope_tool. Closest tools: count_up, echo_text, get_note",
    );
  });

  it("C12: arguments that are not an object, a missing name and bad params are -32602 hints", async () => {
    const raw = await rawConnection(server);
    const notObject = await raw.request("tools/call", { name: "three", arguments: [1, 2] });
    expect(notObject.error).toEqual({
      code: -32602,
      message: "Invalid params for tools/call: params.arguments must be an object of named values (got an array)",
    });
    const noName = await raw.request("tools/call", {});
    expect(noName.error).toEqual({
      code: -32602,
      message: "Invalid params for tools/call: params.name must be the tool name (a non-empty string)",
    });
    const badLevel = await raw.request("logging/setLevel", { level: "loud" });
    expect(badLevel.error?.code).toBe(-32602);
    expect(badLevel.error?.message).toMatch(/params.level must be one of debug, info, notice/);
    await raw.close();
  });

  it("C12: an unknown method is -32601", async () => {
    const error = await client.request({ method: "tools/explode" } as never, z.any()).catch((e: unknown) => e);
    expect((error as McpError).code).toBe(-32601);
  });
});

describe("C13 definitions are checked when they are made", () => {
  it("C13: a bad name, a missing description and an undescribed property fail at definition", () => {
    expect(() =>
      defineTool({ name: "bad name", description: "x", input: z.object({}), handler: () => 1 }),
    ).toThrowError(/Tool "bad name".*C13/);
    expect(() => defineTool({ name: "t", description: " ", input: z.object({}), handler: () => 1 })).toThrowError(
      /Tool "t": description must be a non-empty string/,
    );
    expect(() =>
      defineTool({ name: "t", description: "d", input: z.object({ q: z.string() }), handler: () => 1 }),
    ).toThrowError(DefinitionError);
  });

  it("C13: duplicate tool names across packs fail at start-up, naming both packs", () => {
    expect(() => createServer({ name: "d", version: "1", packs: [notesPack, notesPack] })).toThrowError(
      'Tool "get_note": name is defined twice (in pack "notes" and pack "notes"); names must be unique in a server [C13]',
    );
  });
});

describe("C14 annotations", () => {
  it("C14: annotations and title are published as given", async () => {
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === "search_tickets")?.annotations).toEqual({
      readOnlyHint: true,
      title: "Search tickets",
    });
    expect(tools.find((t) => t.name === "crm_bulk_update_tier")?.annotations).toEqual({
      destructiveHint: false,
      idempotentHint: true,
    });
  });

  it("C14: a read-only server publishes and accepts only read-only tools", async () => {
    const ro = createServer({
      name: "ro",
      version: "1",
      packs: [crmPack(crm), miscPack],
      readOnly: true,
      logger: logs.logger,
    });
    const c = await connectInMemory(ro);
    const names = (await c.listTools()).tools.map((t) => t.name).sort();
    expect(names).toEqual(["crm_get_account", "crm_search_accounts", "three"]);
    const denied = await callOn(c, "crm_bulk_update_tier", { account_ids: ["acc_1"], new_tier: "growth" });
    expect(denied.isError).toBe(true);
    expect(resultText(denied)).toMatch(/^Error executing tool crm_bulk_update_tier: this server is read-only;/);
    expect(denied._meta?.[META]).toEqual({ kind: "tool", code: "permission_denied", retryable: false });
    expect(crm.accounts.get("acc_1")?.tier).toBe("startup");
    await c.close();
    await ro.close();
  });

  it("C14: credentials with only tools:read see and call only read-only tools", async () => {
    const c = await connectInMemory(server, {
      authInfo: { token: "t", clientId: "reader", scopes: ["tools:read"] },
    });
    const names = (await c.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain("crm_bulk_update_tier");
    const denied = await callOn(c, "echo_text", { text: "x" });
    expect(resultText(denied)).toMatch(/your credentials allow read-only tools only/);
    const writer = await connectInMemory(server, {
      authInfo: { token: "t", clientId: "writer", scopes: ["tools:read", "tools:write"] },
    });
    expect((await writer.listTools()).tools.map((t) => t.name)).toContain("crm_bulk_update_tier");
    await c.close();
    await writer.close();
  });
});
