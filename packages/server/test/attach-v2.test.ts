// attachPack on an SDK v2 McpServer (@modelcontextprotocol/server 2.x), served the way v2 serves
// both protocol eras (createMcpHandler on a loopback node:http server, a McpServer per request),
// and on a hand-connected 2025 session; reached with the v2 client in each era and the 1.x client.

import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import {
  Client,
  InMemoryTransport,
  ProtocolError,
  ResourceNotFoundError,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { Client as Client1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as Transport1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createMcpHandler, type McpHttpHandler, McpServer } from "@modelcontextprotocol/server";
import { definePack, definePrompt, defineTool } from "@toolshed/schema";
import { captureLogger, resultText } from "@toolshed/test-support";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { type AttachPackOptions, attachPack, connectInMemory, createLogger, createServer } from "../src/index.js";
import { crmPack, FakeCrm, miscPack, notesPack } from "./fixtures.js";
import {
  ContextProbe,
  contextPack,
  docsPack,
  META,
  PAGE,
  promptsPack,
  refusingPack,
  TICKET_IDS,
  TRIP,
  TRIP_META,
} from "./more-fixtures.js";

const crm = new FakeCrm();
const logs = captureLogger(createLogger);

/** A prompt and a tool that ask the client with their own keys, for the multi round-trip tests. */
const askingPack = definePack({
  name: "asking",
  tools: [
    defineTool({
      name: "two_questions",
      description: "Asks for a colour, then the client's roots.",
      input: z.object({ prefix: z.string().describe("Put before the answer") }),
      output: z.string(),
      handler: async ({ prefix }, ctx) => {
        const colour = await ctx.elicitInput(
          {
            message: "Favourite colour?",
            requestedSchema: { type: "object", properties: { colour: { type: "string" } }, required: ["colour"] },
          },
          { key: "colour" },
        );
        const roots = await ctx.listRoots({ key: "roots" });
        return `${prefix} ${String(colour.content?.colour)} in ${roots.roots.map((r) => r.uri).join(",")}`;
      },
    }),
  ],
  prompts: [
    definePrompt({
      name: "greet",
      description: "Greets the user by the name they give",
      args: z.object({ greeting: z.string().describe("Word to greet with") }),
      render: async ({ greeting }, ctx) => {
        const answer = await ctx.elicitInput?.({
          message: "Your name?",
          requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        });
        return `${greeting}, ${String(answer?.content?.name)}!`;
      },
    }),
  ],
});

const ICONS = [{ src: "https://example.com/badge.png", mimeType: "image/png", sizes: ["48x48"] }];
const badgePack = definePack({
  name: "badges",
  tools: [
    defineTool({
      name: "badge",
      description: "Shows a badge.",
      input: z.object({}),
      icons: ICONS,
      _meta: { "com.example/kind": "badge" },
      handler: () => "badge",
    }),
  ],
});

// Packs are made once; v2 makes a McpServer per request, and the same packs go on each of them.
const packs = [
  badgePack,
  notesPack,
  crmPack(crm),
  miscPack,
  docsPack,
  promptsPack,
  contextPack(new ContextProbe()),
  askingPack,
  refusingPack,
];

function v2Server(options: AttachPackOptions = {}): McpServer {
  const server = new McpServer({ name: "v2-own", version: "1.0.0" }, { capabilities: { logging: {} } });
  for (const pack of packs) attachPack(server, pack, { logger: logs.logger, ...options });
  return server;
}

/** createMcpHandler on 127.0.0.1: the request as a web Request, the response streamed back (SSE included). */
async function serve(handler: McpHttpHandler): Promise<{ url: URL; http: HttpServer }> {
  const http = createHttpServer(async (req, res) => {
    const abort = new AbortController();
    res.on("close", () => abort.abort());
    const headers = new Headers();
    for (const [key, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(", ") : value);
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = req.method === "GET" || req.method === "HEAD" ? undefined : Buffer.concat(chunks).toString("utf8");
    // A bearer token names the caller, so requestState can be bound to it.
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method,
      headers,
      body,
      signal: abort.signal,
    });
    const response = await handler.fetch(
      request,
      token ? { authInfo: { token, clientId: token, scopes: [] } } : undefined,
    );
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) for await (const chunk of response.body) res.write(chunk);
    res.end();
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as { port: number };
  return { url: new URL(`http://127.0.0.1:${port}/mcp`), http };
}

type Era = "modern" | "legacy";
const CAPABILITIES = { elicitation: { form: {} }, sampling: {}, roots: {} };

/** A v2 client: pinned to 2026-07-28, or a plain 2025 client (v2's default). */
async function v2Client(url: URL, era: Era, capabilities: Record<string, unknown> = CAPABILITIES, token?: string) {
  const client = new Client(
    { name: "attach-v2-test", version: "0.0.0" },
    { capabilities, versionNegotiation: { mode: era === "modern" ? { pin: "2026-07-28" } : "legacy" } },
  );
  answerQuestions(client, capabilities);
  const requestInit = token ? { headers: { authorization: `Bearer ${token}` } } : undefined;
  await client.connect(new StreamableHTTPClientTransport(url, requestInit ? { requestInit } : {}));
  expect(client.getProtocolEra()).toBe(era);
  return client;
}

/**
 * The same answers in both eras: a 2026-07-28 client fulfils input_required with these handlers,
 * a 2025 client answers the server's requests with them. `asked` collects the elicitation messages.
 */
function answerQuestions(client: Client, capabilities: Record<string, unknown>, name = "Ada", asked: string[] = []) {
  if (capabilities.elicitation) {
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push(request.params.message);
      const schema = (request.params as { requestedSchema?: { properties?: object } }).requestedSchema;
      const content: Record<string, string> = "colour" in (schema?.properties ?? {}) ? { colour: "teal" } : { name };
      return { action: "accept", content };
    });
  }
  if (capabilities.sampling) {
    client.setRequestHandler("sampling/createMessage", async () => ({
      model: "m1",
      role: "assistant",
      content: { type: "text", text: "four" },
    }));
  }
  if (capabilities.roots) client.setRequestHandler("roots/list", async () => ({ roots: [{ uri: "file:///work" }] }));
}

let handler: McpHttpHandler;
let served: { url: URL; http: HttpServer };
const clients = {} as Record<Era, Client>;

beforeAll(async () => {
  handler = createMcpHandler(() => v2Server());
  served = await serve(handler);
  clients.modern = await v2Client(served.url, "modern");
  clients.legacy = await v2Client(served.url, "legacy");
});

afterAll(async () => {
  await clients.modern.close();
  await clients.legacy.close();
  await handler.close();
  served.http.close();
});

beforeEach(() => {
  const fresh = new FakeCrm();
  crm.accounts = fresh.accounts;
  crm.latencyMs = 0;
});

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

describe.each(["modern", "legacy"] as const)("attachPack on a v2 McpServer, %s era over HTTP", (era) => {
  const client = () => clients[era];

  it("C5: every tool is published exactly as createServer publishes it (portable schemas, wrapped output)", async () => {
    const own = createServer({ name: "runtime", version: "1.0.0", packs, logger: logs.logger });
    const reference = await connectInMemory(own);
    const expected = (await reference.listTools()).tools;
    await reference.close();
    await own.close();
    const { tools } = await client().listTools();
    const pick = (t: Record<string, unknown>) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema,
      outputSchema: t.outputSchema,
      annotations: t.annotations,
    });
    expect(tools.map(pick)).toEqual(expected.map(pick));
    const note = tools.find((t) => t.name === "get_note");
    expect(note?.inputSchema).toEqual({
      type: "object",
      properties: { title: { type: "string", description: "Exact title of the note" } },
      required: ["title"],
      additionalProperties: false,
    });
    expect(JSON.stringify(tools)).not.toContain("$schema");
    expect(tools.find((t) => t.name === "three")?.outputSchema).toEqual({
      type: "object",
      properties: { result: { type: "number" } },
      required: ["result"],
    });
  });

  it("a tool's icons and _meta are listed as createServer lists them", async () => {
    const { tools } = await client().listTools();
    expect(tools.find((t) => t.name === "badge")).toMatchObject({
      icons: ICONS,
      _meta: { "com.example/kind": "badge" },
    });
  });

  it("C1: an object result is structuredContent plus the same value as 2-space JSON text", async () => {
    const result = await call(client(), "get_note", { title: "groceries" });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ title: "groceries", body: "milk, eggs", words: 2 });
    expect(result.content).toEqual([
      { type: "text", text: JSON.stringify({ title: "groceries", body: "milk, eggs", words: 2 }, null, 2) },
    ]);
  });

  it("C2: non-object results are wrapped as {result}", async () => {
    const three = await call(client(), "three");
    expect(three.structuredContent).toEqual({ result: 3 });
    expect(three.content).toEqual([{ type: "text", text: "3" }]);
    const echoed = await call(client(), "echo_text", { text: "hello" });
    expect(echoed.structuredContent).toEqual({ result: "hello" });
    expect(resultText(echoed)).toBe("hello");
  });

  it("C3: output that breaks the schema is masked, never sent", async () => {
    const result = await call(client(), "bad_output");
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(resultText(result)).toMatch(/^Error executing tool bad_output \(ref [0-9a-f]{8}\)$/);
    expect(JSON.stringify(result)).not.toContain("many");
  });

  it("C6: invalid arguments never reach the handler and get the hint text and error class", async () => {
    const range = await call(client(), "crm_search_accounts", { query: "Acme", min_arr: 100, max_arr: 5 });
    expect(range.isError).toBe(true);
    expect(range.content).toEqual([
      {
        type: "text",
        text: "Invalid arguments for tool crm_search_accounts:\nmax_arr: must be greater than or equal to min_arr",
      },
    ]);
    expect(range._meta?.[META]).toMatchObject({ kind: "validation", code: "invalid_arguments", retryable: false });
    const several = await call(client(), "crm_search_accounts", { query: "A", tier: "huge" });
    expect(resultText(several)).toBe(
      'Invalid arguments for tool crm_search_accounts:\nquery: must be at least 2 characters (got 1)\ntier: must be one of "startup", "growth", "enterprise" (got "huge")',
    );
    expect(resultText(await call(client(), "get_note"))).toMatch(/^Invalid arguments for tool get_note:\ntitle: /);
  });

  it("lax coercion: numeric strings, an enum in another case and a camelCase name are taken and logged", async () => {
    const before = logs.lines.length;
    const coerced = await call(client(), "crm_search_accounts", { query: "Acme", tier: "GROWTH", minArr: "100" });
    expect(coerced.isError).toBeFalsy();
    const meant = await call(client(), "crm_search_accounts", { query: "Acme", tier: "growth", min_arr: 100 });
    expect(coerced.structuredContent).toEqual(meant.structuredContent);
    expect(logs.lines.slice(before).find((l) => l.msg === "arguments coerced")).toMatchObject({
      tool: "crm_search_accounts",
      coerced: [
        { path: "min_arr", kind: "argument_name", from: "minArr" },
        { path: "tier", kind: "enum_case", from: "string" },
        { path: "min_arr", kind: "number", from: "string" },
      ],
    });
    expect(resultText(await call(client(), "crm_search_accounts", { query: "Acme", min_arr: "1e999" }))).toBe(
      'Invalid arguments for tool crm_search_accounts:\nmin_arr: must be a number (got "1e999")',
    );
  });

  it("C6: a handler's InvalidArgumentsError or invalid_arguments ToolError has the same text and class", async () => {
    const trip = await call(client(), "plan_trip", { from: "Oslo", to: "Oslo" });
    expect(trip).toMatchObject({ content: [{ type: "text", text: TRIP }], isError: true });
    expect(trip._meta?.[META]).toEqual(TRIP_META);
    expect(resultText(await call(client(), "next_page", { cursor: "x" }))).toBe(PAGE);
  });

  it("C7: a throwing handler is masked; no secret on the wire; logged with the ref", async () => {
    const result = await call(client(), "leaky");
    const wire = JSON.stringify(result);
    expect(resultText(result)).toMatch(/^Error executing tool leaky \(ref [0-9a-f]{8}\)$/);
    for (const secret of ["hunter2", "/srv/app", "secret.ts", "Error:"]) expect(wire).not.toContain(secret);
    const meta = result._meta?.[META] as { ref: string };
    expect(meta).toEqual({ kind: "internal", code: "internal_error", retryable: false, ref: meta.ref });
    expect(JSON.stringify(logs.lines.find((l) => l.ref === meta.ref))).toContain("db password hunter2");
  });

  it("C8/C9: a ToolError reaches the model with its class; a timeout is retryable", async () => {
    const missing = await call(client(), "get_note", { title: "nope" });
    expect(missing.isError).toBe(true);
    expect(resultText(missing)).toBe("Error executing tool get_note: No note 'nope'. Known titles: groceries, todo");
    expect(missing._meta?.[META]).toEqual({ kind: "tool", code: "not_found", retryable: false });
    expect(missing.structuredContent).toBeUndefined();
    crm.latencyMs = 1000;
    const slow = await call(client(), "crm_get_account", { account_id: "acc_1" });
    expect(resultText(slow)).toBe(
      "Error executing tool crm_get_account: timed out after 100 ms; temporary failure, safe to retry",
    );
    expect(slow._meta?.[META]).toEqual({ kind: "tool", code: "timeout", retryable: true });
    const upstream = await call(client(), "upstream", { status: 503 });
    expect(upstream._meta?.[META]).toMatchObject({ code: "unavailable", retryable: true, retryAfterMs: 3000 });
    expect(JSON.stringify(upstream)).not.toContain("secret-token-xyz");
  });

  it("C11: partial success is not an error; all failed is isError with the same structured content", async () => {
    const partial = await call(client(), "crm_bulk_update_tier", {
      account_ids: ["acc_1", "acc_9", "acc_3"],
      new_tier: "growth",
    });
    expect(partial.isError).toBeFalsy();
    expect(partial.structuredContent).toEqual({
      succeeded_count: 1,
      failed_count: 2,
      succeeded: ["acc_1"],
      failed: [
        { id: "acc_9", reason: "not_found", message: "No account 'acc_9'", retryable: false },
        { id: "acc_3", reason: "failed_precondition", message: "Account 'acc_3' is archived", retryable: false },
      ],
    });
    expect(resultText(partial).split("\n")[0]).toBe("1 of 3 items succeeded, 2 failed.");
    const none = await call(client(), "crm_bulk_update_tier", { account_ids: ["acc_9"], new_tier: "growth" });
    expect(none.isError).toBe(true);
    expect(none.structuredContent).toMatchObject({ succeeded_count: 0, failed_count: 1 });
    expect(none._meta?.[META]).toEqual({ kind: "tool", code: "not_found", retryable: false });
  });

  it("C4: a full result passes as the handler made it", async () => {
    const result = await call(client(), "picture");
    expect(result.content).toEqual([
      { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
      { type: "resource_link", uri: "note://groceries", name: "groceries" },
    ]);
  });

  it("lists resources and templates, reads a template URI and a blob", async () => {
    const { resources } = await client().listResources();
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
    const { resourceTemplates } = await client().listResourceTemplates();
    expect(resourceTemplates.map((t) => [t.name, t.uriTemplate, t.mimeType])).toEqual([
      ["note", "note://{title}", "text/markdown"],
      ["ticket", "ticket://{id}", "application/json"],
    ]);
    expect((await client().readResource({ uri: "note://groceries" })).contents).toEqual([
      { uri: "note://groceries", mimeType: "text/markdown", text: "milk, eggs" },
    ]);
    expect((await client().readResource({ uri: "logo://small" })).contents).toEqual([
      { uri: "logo://small", mimeType: "image/png", blob: "iVBORw0KGgo=" },
    ]);
    expect((await client().readResource({ uri: "multi://parts" })).contents).toHaveLength(2);
  });

  it("a resource that does not exist is v2's -32602 with data {uri}, whether no form fits or the pack says so", async () => {
    for (const uri of ["nope://x", "note://nope"]) {
      const error = await client()
        .readResource({ uri })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ResourceNotFoundError);
      expect((error as ResourceNotFoundError).code).toBe(-32602);
      expect((error as ResourceNotFoundError).data).toEqual({ uri });
    }
  });

  it("other read failures are the runtime's: masked -32603, tool errors with their text", async () => {
    const boom = (await client()
      .readResource({ uri: "secret://boom" })
      .catch((e: unknown) => e)) as ProtocolError;
    expect(boom).toBeInstanceOf(ProtocolError);
    expect(boom.code).toBe(-32603);
    expect(boom.message).toMatch(/Internal error \(ref [0-9a-f]{8}\)$/);
    expect(JSON.stringify(boom)).not.toContain("hunter2");
    const picky = (await client()
      .readResource({ uri: "picky://doc" })
      .catch((e: unknown) => e)) as ProtocolError;
    expect(picky.code).toBe(-32602);
    expect(picky.message).toContain("this document needs a version; use picky://doc?v=2");
  });

  it("lists prompts as createServer does and renders them; invalid arguments are -32602 with hints", async () => {
    const { prompts } = await client().listPrompts();
    expect(prompts.find((p) => p.name === "review_code")).toEqual({
      name: "review_code",
      title: "Review code",
      description: "Ask the model to review code in one language and framework",
      arguments: [
        { name: "language", description: "Language of the code", required: true },
        { name: "framework", description: "Framework the code uses", required: true },
        { name: "depth", description: "How deep to go: brief or thorough", required: false },
      ],
    });
    expect(await client().getPrompt({ name: "summarize_note", arguments: { title: "todo" } })).toMatchObject({
      description: "Ask the model to summarize one note",
      messages: [{ role: "user", content: { type: "text", text: "Summarize the note 'todo':\n\ncall mom" } }],
    });
    const bad = (await client()
      .getPrompt({ name: "review_code", arguments: { language: "rust", framework: "x" } })
      .catch((e: unknown) => e)) as ProtocolError;
    expect(bad.code).toBe(-32602);
    expect(bad.message).toContain(
      'Invalid arguments for prompt review_code:\nlanguage: must be one of "ts", "py" (got "rust")\nframework: must be at least 2 characters (got 1)',
    );
  });

  it("completes prompt arguments (with the other arguments as context) and template variables", async () => {
    const complete = (ref: object, name: string, value: string, args?: Record<string, string>) =>
      client().complete({
        ref: ref as never,
        argument: { name, value },
        ...(args ? { context: { arguments: args } } : {}),
      });
    const prompt = { type: "ref/prompt", name: "review_code" };
    expect((await complete(prompt, "framework", "f", { language: "py" })).completion.values).toEqual([
      "fastapi",
      "flask",
    ]);
    expect((await complete(prompt, "framework", "", { language: "ts" })).completion.values).toEqual([
      "express",
      "fastify",
      "hono",
    ]);
    expect((await complete({ type: "ref/prompt", name: "summarize_note" }, "title", "g")).completion).toEqual({
      values: ["groceries"],
      total: 1,
      hasMore: false,
    });
    const ids = await complete({ type: "ref/resource", uri: "ticket://{id}" }, "id", "");
    expect(ids.completion).toEqual({ values: TICKET_IDS.slice(0, 100), total: 150, hasMore: true });
  });

  it("elicitation and roots: a tool's two questions are answered and the call completes", async () => {
    const result = await call(client(), "two_questions", { prefix: ">" });
    if (era === "legacy") {
      // createMcpHandler serves 2025 requests on a fresh McpServer each: nothing to ask the client on.
      expect(resultText(result)).toBe(
        "Error executing tool two_questions: this server runs without sessions, so the tool cannot ask the user (elicitation)",
      );
      expect(result._meta?.[META]).toEqual({ kind: "tool", code: "failed_precondition", retryable: false });
      return;
    }
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ result: "> teal in file:///work" });
  });
});

describe("questions to the client, 2026-07-28 (multi round-trip over HTTP)", () => {
  it("ask_user and ask_model: the v2 client answers input_required and retries on a fresh McpServer", async () => {
    expect((await call(clients.modern, "ask_user")).structuredContent).toEqual({ result: "hello Ada" });
    expect((await call(clients.modern, "ask_model", { question: "2+2?" })).structuredContent).toEqual({
      result: "m1: four",
    });
  });

  // A client that never listed the tools: the v2 client checks an input_required result it is
  // handed (allowInputRequired) against the output schema it cached from tools/list.
  let manual: Client;
  beforeAll(async () => {
    manual = await v2Client(served.url, "modern");
  });
  afterAll(() => manual.close());

  it("the input_required result names each question by its key and carries a signed state", async () => {
    const first = (await manual.callTool(
      { name: "two_questions", arguments: { prefix: ">" } },
      { allowInputRequired: true },
    )) as unknown as { resultType: string; inputRequests: Record<string, unknown>; requestState: string };
    expect(first.resultType).toBe("input_required");
    expect(first.inputRequests).toEqual({
      colour: {
        method: "elicitation/create",
        params: {
          message: "Favourite colour?",
          requestedSchema: { type: "object", properties: { colour: { type: "string" } }, required: ["colour"] },
        },
      },
    });
    const second = (await manual.callTool(
      {
        name: "two_questions",
        arguments: { prefix: ">" },
        inputResponses: { colour: { action: "accept", content: { colour: "red" } } },
        requestState: first.requestState,
      } as never,
      { allowInputRequired: true },
    )) as unknown as { inputRequests: Record<string, unknown>; requestState: string };
    // The colour is in the new state: the client is asked only for its roots.
    expect(second.inputRequests).toEqual({ roots: { method: "roots/list" } });
    const done = (await manual.callTool(
      {
        name: "two_questions",
        arguments: { prefix: ">" },
        inputResponses: { roots: { roots: [{ uri: "file:///r" }] } },
        requestState: second.requestState,
      } as never,
      { allowInputRequired: true },
    )) as CallToolResult;
    expect(done.structuredContent).toEqual({ result: "> red in file:///r" });
  });

  it("a changed or foreign requestState is a non-retryable invalid_arguments tool error", async () => {
    const first = (await manual.callTool(
      { name: "two_questions", arguments: { prefix: ">" } },
      { allowInputRequired: true },
    )) as unknown as { requestState: string };
    const retry = (requestState: string, args = { prefix: ">" }) =>
      manual.callTool(
        {
          name: "two_questions",
          arguments: args,
          inputResponses: { colour: { action: "accept", content: { colour: "red" } } },
          requestState,
        } as never,
        { allowInputRequired: true },
      ) as Promise<CallToolResult>;
    const tampered = await retry(`x${first.requestState}`);
    expect(tampered.isError).toBe(true);
    expect(resultText(tampered)).toBe(
      "Invalid arguments for tool two_questions:\nrequestState was not issued by this server or was changed; send the request again without requestState and inputResponses to start over",
    );
    expect(tampered._meta?.[META]).toEqual({ kind: "validation", code: "invalid_arguments", retryable: false });
    // Bound to the arguments it was made for.
    expect(resultText(await retry(first.requestState, { prefix: "<" }))).toMatch(
      /^Invalid arguments for tool two_questions:\nrequestState belongs to another request/,
    );
    const wrongShape = (await manual.callTool(
      { name: "two_questions", arguments: { prefix: ">" }, inputResponses: { colour: { action: "maybe" } } } as never,
      { allowInputRequired: true },
    )) as CallToolResult;
    expect(resultText(wrongShape)).toMatch(
      /^Invalid arguments for tool two_questions:\ninputResponses\["colour"\] is not a valid elicitation\/create result/,
    );
    expect(wrongShape._meta?.[META]).toEqual({ kind: "validation", code: "invalid_arguments", retryable: false });
  });

  it("a state made for one caller is refused for another (bound to the token's client id)", async () => {
    const alice = await v2Client(served.url, "modern", CAPABILITIES, "alice");
    const bob = await v2Client(served.url, "modern", CAPABILITIES, "bob");
    const first = (await alice.callTool(
      { name: "ask_user", arguments: {} },
      { allowInputRequired: true },
    )) as unknown as {
      requestState: string;
    };
    const stolen = (await bob.callTool(
      {
        name: "ask_user",
        arguments: {},
        inputResponses: { "elicitation-1": { action: "accept", content: { name: "Eve" } } },
        requestState: first.requestState,
      } as never,
      { allowInputRequired: true },
    )) as CallToolResult;
    expect(resultText(stolen)).toContain("belongs to another request");
    expect((await call(alice, "ask_user")).structuredContent).toEqual({ result: "hello Ada" });
    await alice.close();
    await bob.close();
  });

  it("instances that share requestState.secret finish each other's round trips; others refuse them", async () => {
    const secret = "a shared secret of at least 32 bytes!";
    const one = createMcpHandler(() => v2Server({ requestState: { secret } }));
    const two = createMcpHandler(() => v2Server({ requestState: { secret } }));
    const other = createMcpHandler(() => v2Server({ requestState: { secret: "another secret of 32 bytes or more" } }));
    const servers = await Promise.all([one, two, other].map(serve));
    const [a, b, c] = await Promise.all(servers.map((s) => v2Client(s.url, "modern")));
    const first = (await (a as Client).callTool(
      { name: "ask_user", arguments: {} },
      { allowInputRequired: true },
    )) as unknown as {
      requestState: string;
    };
    const answer = {
      name: "ask_user",
      arguments: {},
      inputResponses: { "elicitation-1": { action: "accept", content: { name: "Lin" } } },
      requestState: first.requestState,
    } as never;
    expect(((await (b as Client).callTool(answer)) as CallToolResult).structuredContent).toEqual({
      result: "hello Lin",
    });
    expect(resultText((await (c as Client).callTool(answer)) as CallToolResult)).toContain(
      "was not issued by this server",
    );
    for (const client of [a, b, c]) await client?.close();
    for (const h of [one, two, other]) await h.close();
    for (const s of servers) s.http.close();
  });

  it("a question the client cannot answer is a failed_precondition tool error, as on SDK 1.x", async () => {
    const bare = await v2Client(served.url, "modern", {});
    const result = await call(bare, "ask_model", { question: "2+2?" });
    expect(resultText(result)).toBe(
      "Error executing tool ask_model: this client does not support sampling, so the tool cannot ask its model",
    );
    expect(result._meta?.[META]).toEqual({ kind: "tool", code: "failed_precondition", retryable: false });
    await bare.close();
  });

  it("a prompt that asks the user is multi round-trip too", async () => {
    expect(await clients.modern.getPrompt({ name: "greet", arguments: { greeting: "Hi" } })).toMatchObject({
      messages: [{ role: "user", content: { type: "text", text: "Hi, Ada!" } }],
    });
  });

  it("progress reaches the client; logs only when the request asks for them in _meta", async () => {
    const seen: unknown[] = [];
    const messages: string[] = [];
    clients.modern.setNotificationHandler("notifications/message", (n) => {
      messages.push(`${n.params.level} ${n.params.logger} ${JSON.stringify(n.params.data)}`);
    });
    const result = await clients.modern.callTool(
      { name: "count_up", arguments: { to: 2 }, _meta: { "io.modelcontextprotocol/logLevel": "warning" } },
      { onprogress: (p) => seen.push(p) },
    );
    expect(result.structuredContent).toEqual({ result: 2 });
    expect(seen).toEqual([
      { progress: 1, total: 2, message: "step 1" },
      { progress: 2, total: 2, message: "step 2" },
    ]);
    expect(messages).toEqual(['warning count_up {"step":2}']);
  });
});

describe("questions to the client, 2025 session (a McpServer connected by hand)", () => {
  let session: { server: McpServer; client: Client };

  beforeAll(async () => {
    const server = v2Server();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: "session", version: "0.0.0" }, { capabilities: CAPABILITIES });
    answerQuestions(client, CAPABILITIES);
    await client.connect(clientSide);
    expect(client.getProtocolEra()).toBe("legacy");
    session = { server, client };
  });

  afterAll(async () => {
    await session.client.close();
    await session.server.close();
  });

  it("v2 asks the client with real requests and runs the handler again with the answers", async () => {
    const asked: string[] = [];
    const client = session.client;
    answerQuestions(client, CAPABILITIES, "Bob", asked);
    expect((await call(client, "ask_user")).structuredContent).toEqual({ result: "hello Bob" });
    expect((await call(client, "ask_model", { question: "2+2?" })).structuredContent).toEqual({ result: "m1: four" });
    // Earlier answers ride in the state, so each question is asked once.
    expect((await call(client, "two_questions", { prefix: ">" })).structuredContent).toEqual({
      result: "> teal in file:///work",
    });
    expect(asked).toEqual(["What is your name?", "Favourite colour?"]);
    expect(await client.getPrompt({ name: "greet", arguments: { greeting: "Hello" } })).toMatchObject({
      messages: [{ role: "user", content: { type: "text", text: "Hello, Bob!" } }],
    });
  });

  it("progress reaches the client; the McpServer's setLevel filters logs", async () => {
    const messages: string[] = [];
    session.client.setNotificationHandler("notifications/message", (n) => {
      messages.push(`${n.params.level} ${n.params.logger} ${JSON.stringify(n.params.data)}`);
    });
    const seen: unknown[] = [];
    await session.client.setLoggingLevel("warning");
    await session.client.callTool({ name: "count_up", arguments: { to: 2 } }, { onprogress: (p) => seen.push(p) });
    expect(seen).toEqual([
      { progress: 1, total: 2, message: "step 1" },
      { progress: 2, total: 2, message: "step 2" },
    ]);
    expect(messages).toEqual(['warning count_up {"step":2}']);
  });

  it("a client without the capability gets the failed_precondition tool error", async () => {
    const server = v2Server();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: "bare", version: "0.0.0" });
    await client.connect(clientSide);
    const result = await call(client, "ask_user");
    expect(resultText(result)).toBe(
      "Error executing tool ask_user: this client does not support elicitation, so the tool cannot ask the user",
    );
    await client.close();
    await server.close();
  });
});

describe("an SDK 1.x client against the v2 McpServer (2025, stateless HTTP)", () => {
  it("lists and calls tools with the contract's results", async () => {
    const client = new Client1({ name: "sdk1", version: "0.0.0" });
    await client.connect(new Transport1(served.url));
    expect((await client.listTools()).tools.find((t) => t.name === "get_note")?.inputSchema).not.toHaveProperty(
      "$schema",
    );
    const result = (await client.callTool({
      name: "crm_search_accounts",
      arguments: { query: "glob" },
    })) as CallToolResult;
    expect(result.structuredContent).toEqual({ count: 1, accounts: [{ id: "acc_2", name: "Globex" }] });
    await client.close();
  });
});

describe("known differences from createServer (the v2 McpServer owns these)", () => {
  it("C12 holds: an unknown tool is -32602 naming the closest tools, as createServer answers, in both eras", async () => {
    for (const client of [clients.modern, clients.legacy]) {
      const error = (await client
        .callTool({ name: "get_nots", arguments: {} })
        .catch((e: unknown) => e)) as ProtocolError;
      expect(error).toBeInstanceOf(ProtocolError);
      expect(error.code).toBe(-32602);
      expect(error.message).toMatch(/^Unknown tool: get_nots\. Closest tools: get_note, [a-z_]+, [a-z_]+$/);
    }
  });

  it("2025 clients get -32602 for a missing resource too (createServer answers them -32002)", async () => {
    const error = (await clients.legacy.readResource({ uri: "nope://x" }).catch((e: unknown) => e)) as ProtocolError;
    expect(error.code).toBe(-32602);
  });
});
