import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { legacyInitialize } from "@toolshed/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connect,
  FIXTURE,
  type HttpProcess,
  killChildren,
  MCP_HEADERS,
  post,
  removeTempDirs,
  resultText,
  sseMessages,
  startServer,
} from "./helpers.js";

let server: HttpProcess;

beforeAll(async () => {
  server = await startServer(["--demo"], { script: FIXTURE });
});
afterAll(async () => {
  await killChildren();
  removeTempDirs();
});

const init = legacyInitialize;

describe("stateless mode with the SDK client", () => {
  it("initializes, lists every pack's tools and calls get_note", async () => {
    const { client } = await connect(server.url);
    expect(client.getServerVersion()).toEqual({ name: "toolshed", version: "0.1.0" });
    expect(client.getServerCapabilities()).toEqual({
      tools: { listChanged: false },
      logging: {},
      resources: { listChanged: false },
      prompts: { listChanged: false },
      completions: {},
    });
    const names = (await client.listTools()).tools.map((t) => t.name);
    for (const name of ["get_note", "search_notes", "create_note", "search_tickets", "crm_search_accounts"]) {
      expect(names).toContain(name);
    }
    const result = await client.callTool({ name: "get_note", arguments: { title: "groceries" } });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual({ title: "groceries", body: "milk, eggs", words: 2 });
    expect(JSON.parse(resultText(result))).toEqual({ title: "groceries", body: "milk, eggs", words: 2 });
    await client.close();
  });

  it("C6: invalid arguments are a tool error with one hint per problem", async () => {
    const { client } = await connect(server.url);
    const result = await client.callTool({ name: "search_notes", arguments: { query: "milk", limit: 999 } });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toBe("Invalid arguments for tool search_notes:\nlimit: must be at most 50 (got 999)");
    expect(result._meta?.["toolshed.dev/error"]).toMatchObject({ kind: "validation", code: "invalid_arguments" });
    await client.close();
  });

  it("C8: a tool error reaches the model with its hint", async () => {
    const { client } = await connect(server.url);
    const result = await client.callTool({ name: "get_note", arguments: { title: "grocerie" } });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toBe("Error executing tool get_note: No note 'grocerie'. Closest titles: groceries");
    expect(result._meta?.["toolshed.dev/error"]).toMatchObject({ kind: "tool", code: "not_found", retryable: false });
    await client.close();
  });

  it("C7: an unexpected exception is masked behind a reference that is also in the log", async () => {
    const { client } = await connect(server.url);
    const result = await client.callTool({ name: "test_crash", arguments: {} });
    expect(result.isError).toBe(true);
    const text = resultText(result);
    expect(text).toMatch(/^Error executing tool test_crash \(ref [0-9a-f]+\)$/);
    expect(text).not.toContain("hunter2");
    const ref = /ref ([0-9a-f]+)/.exec(text)?.[1];
    await server.waitForLog((l) => l.ref === ref && l.level >= 50);
    await client.close();
  });

  it("C12: an unknown tool is JSON-RPC error -32602", async () => {
    const { client } = await connect(server.url);
    const error = await client.callTool({ name: "nope", arguments: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
    expect((error as McpError).message).toContain("Unknown tool: nope");
    await client.close();
  });

  it("streams progress and log notifications over SSE before the result", async () => {
    const { client } = await connect(server.url);
    const progress: Array<{ progress: number; total?: number; message?: string }> = [];
    const result = await client.callTool({ name: "test_progress", arguments: { steps: 3 } }, undefined, {
      onprogress: (p) => progress.push(p),
    });
    expect(result.structuredContent).toEqual({ done: 3 });
    expect(progress).toEqual([
      { progress: 1, total: 3, message: "step 1" },
      { progress: 2, total: 3, message: "step 2" },
      { progress: 3, total: 3, message: "step 3" },
    ]);
    await client.close();
  });

  it("answers resources, prompts, completion, ping and logging/setLevel", async () => {
    const { client } = await connect(server.url);
    expect((await client.listResources()).resources.length).toBeGreaterThan(0);
    expect((await client.listResourceTemplates()).resourceTemplates.length).toBeGreaterThan(0);
    expect((await client.listPrompts()).prompts.length).toBeGreaterThan(0);
    expect(await client.ping()).toEqual({});
    expect(await client.setLoggingLevel("warning")).toEqual({});
    await client.close();
  });
});

describe("stateless mode on the wire", () => {
  it("negotiates the protocol version: a supported one is echoed, an unknown one gets the latest", async () => {
    const a = await post(server.url, init(1, "2025-03-26"));
    expect(a.status).toBe(200);
    expect(a.headers.get("content-type")).toBe("application/json");
    expect((a.json as { result: { protocolVersion: string } }).result.protocolVersion).toBe("2025-03-26");
    const b = await post(server.url, init(2, "1999-01-01"));
    expect((b.json as { result: { protocolVersion: string } }).result.protocolVersion).toBe("2025-11-25");
  });

  it("answers a notification with 202 and no body", async () => {
    const res = await post(server.url, { jsonrpc: "2.0", method: "notifications/initialized" });
    expect(res.status).toBe(202);
    expect(res.text).toBe("");
  });

  it("answers a client's JSON-RPC response with 202", async () => {
    const res = await post(server.url, { jsonrpc: "2.0", id: 7, result: {} });
    expect(res.status).toBe(202);
  });

  it("unparseable JSON is -32700 with id null", async () => {
    const res = await post(server.url, "{not json");
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: "Parse error: the message is not valid JSON" },
    });
  });

  it("an invalid message is -32600 with its id", async () => {
    const res = await post(server.url, { jsonrpc: "1.0", id: 5, method: "ping" });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      jsonrpc: "2.0",
      id: 5,
      error: { code: -32600, message: 'Invalid Request: "jsonrpc" must be "2.0"' },
    });
  });

  it("an unknown method is -32601", async () => {
    const res = await post(server.url, { jsonrpc: "2.0", id: 9, method: "tools/frobnicate" });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ jsonrpc: "2.0", id: 9, error: { code: -32601, message: "Method not found" } });
  });

  it("resources/subscribe is -32601: without a session there is no stream for updates", async () => {
    const res = await post(server.url, {
      jsonrpc: "2.0",
      id: 10,
      method: "resources/subscribe",
      params: { uri: "note://groceries" },
    });
    expect(res.json).toEqual({ jsonrpc: "2.0", id: 10, error: { code: -32601, message: "Method not found" } });
  });

  it("malformed tools/call params get the SDK binding's -32602 hints", async () => {
    const noName = await post(server.url, { jsonrpc: "2.0", id: 1, method: "tools/call", params: {} });
    expect(noName.json).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: {
        code: -32602,
        message: "Invalid params for tools/call: params.name must be the tool name (a non-empty string)",
      },
    });
    const badArgs = await post(server.url, {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "get_note", arguments: [1] },
    });
    expect(badArgs.json).toEqual({
      jsonrpc: "2.0",
      id: 2,
      error: {
        code: -32602,
        message: "Invalid params for tools/call: params.arguments must be an object of named values (got an array)",
      },
    });
    const unknown = await post(server.url, {
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "nope", arguments: {} },
    });
    expect(unknown.json).toEqual({
      jsonrpc: "2.0",
      id: 3,
      error: { code: -32602, message: "Unknown tool: nope. Closest tools: get_note, list_notes, create_note" },
    });
  });

  it("answers every request of a batch, with errors for the invalid elements, and none for notifications", async () => {
    const res = await post(server.url, [
      { jsonrpc: "2.0", id: "a", method: "ping" },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: "b", method: "nope" },
      { jsonrpc: "2.0", id: "c", params: [], method: "ping" },
      { jsonrpc: "2.0", id: "d", method: "tools/call", params: { name: "get_note", arguments: { title: "todo" } } },
    ]);
    expect(res.status).toBe(200);
    const answers = res.json as Array<{ id: string; result?: unknown; error?: { code: number } }>;
    expect(answers.map((a) => a.id).sort()).toEqual(["a", "b", "c", "d"]);
    const byId = new Map(answers.map((a) => [a.id, a]));
    expect(byId.get("a")?.result).toEqual({});
    expect(byId.get("b")?.error?.code).toBe(-32601);
    expect(byId.get("c")?.error?.code).toBe(-32600);
    expect((byId.get("d")?.result as { structuredContent?: unknown } | undefined)?.structuredContent).toEqual({
      title: "todo",
      body: "call mom",
      words: 2,
    });
  });

  it("an empty batch is -32600", async () => {
    const res = await post(server.url, []);
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "Invalid Request: an empty batch" },
    });
  });

  it("an initialize inside a batch is refused", async () => {
    const res = await post(server.url, [init(1), { jsonrpc: "2.0", id: 2, method: "ping" }]);
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      jsonrpc: "2.0",
      error: { code: -32600, message: "Invalid Request: Only one initialization request is allowed" },
      id: null,
    });
  });

  it("answers SSE when a call carries a progress token: notifications first, then the result", async () => {
    const res = await post(server.url, {
      jsonrpc: "2.0",
      id: 11,
      method: "tools/call",
      params: { name: "test_progress", arguments: { steps: 2 }, _meta: { progressToken: "tok-1" } },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    expect(res.text).toMatch(/^event: message\ndata: /);
    const messages = sseMessages(res.text);
    expect(messages.map((m) => m.method ?? `result ${m.id}`)).toEqual([
      "notifications/progress",
      "notifications/message",
      "notifications/progress",
      "notifications/message",
      "result 11",
    ]);
    expect(messages[0]?.params).toEqual({ progressToken: "tok-1", progress: 1, total: 2, message: "step 1" });
    expect(messages[1]?.params).toEqual({ level: "info", logger: "test_progress", data: "did step 1" });
    expect((messages[4]?.result as { structuredContent?: unknown } | undefined)?.structuredContent).toEqual({
      done: 2,
    });
  });

  it("a tool that asks for sampling gets a tool error that says why (no sessions)", async () => {
    const res = await post(server.url, {
      jsonrpc: "2.0",
      id: 12,
      method: "tools/call",
      params: { name: "test_ask", arguments: { question: "hi" } },
    });
    const result = (res.json as { result: unknown }).result;
    expect(resultText(result)).toBe(
      "Error executing tool test_ask: this server runs without sessions, so the tool cannot ask the client's model (sampling)",
    );
  });

  it("406 without both media types in Accept, 415 without a JSON body, as the SDK transport answers", async () => {
    // Media types are case-insensitive: an upper-case Accept is as good as any.
    const upper = await post(server.url, init(9), { accept: "APPLICATION/JSON, Text/Event-Stream" });
    expect(upper.status).toBe(200);
    const a = await post(server.url, init(1), { accept: "application/json" });
    expect(a.status).toBe(406);
    expect(a.json).toEqual({
      jsonrpc: "2.0",
      error: {
        code: -32000,
        message: "Not Acceptable: Client must accept both application/json and text/event-stream",
      },
      id: null,
    });
    const b = await post(server.url, init(1), { "content-type": "text/plain" });
    expect(b.status).toBe(415);
    expect(b.json).toEqual({
      jsonrpc: "2.0",
      error: { code: -32000, message: "Unsupported Media Type: Content-Type must be application/json" },
      id: null,
    });
  });

  it("400 for an unsupported MCP-Protocol-Version header after initialize", async () => {
    const res = await post(
      server.url,
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { "mcp-protocol-version": "1999-01-01" },
    );
    expect(res.status).toBe(400);
    expect((res.json as { error: { code: number; message: string } }).error).toEqual({
      code: -32000,
      message:
        "Bad Request: Unsupported protocol version: 1999-01-01 (supported versions: 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05, 2024-10-07)",
    });
    const ok = await post(
      server.url,
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { "mcp-protocol-version": "2025-06-18" },
    );
    expect(ok.status).toBe(200);
  });

  it("GET and DELETE on /mcp are 405 with Allow: POST", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(server.url, { method, headers: { accept: "text/event-stream" } });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
      expect(await res.json()).toEqual({
        jsonrpc: "2.0",
        error: { code: -32000, message: "Method not allowed." },
        id: null,
      });
    }
  });

  it("every response carries an x-request-id, and a client's own id is kept", async () => {
    const res = await fetch(server.url, {
      method: "POST",
      headers: { ...MCP_HEADERS, "x-request-id": "trace-42" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(res.headers.get("x-request-id")).toBe("trace-42");
    const line = await server.waitForLog((l) => l.msg === "request" && l.reqId === "trace-42");
    expect(line).toMatchObject({ method: "POST", path: "/mcp", status: 200, rpc: "ping" });
  });

  it("logs one line per request with the JSON-RPC method, tool and outcome", async () => {
    const res = await fetch(server.url, {
      method: "POST",
      headers: { ...MCP_HEADERS, "x-request-id": "log-check-1" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "search_notes", arguments: { query: "milk", limit: 999 } },
      }),
    });
    expect(res.status).toBe(200);
    const line = await server.waitForLog((l) => l.msg === "request" && l.reqId === "log-check-1");
    expect(line).toMatchObject({
      method: "POST",
      path: "/mcp",
      status: 200,
      rpc: "tools/call",
      tool: "search_notes",
      outcome: "validation",
    });
    expect(typeof line.durationMs).toBe("number");
  });

  it("an unknown path is 404 with a hint", async () => {
    const res = await fetch(`${server.base}/sse`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      jsonrpc: "2.0",
      error: { code: -32000, message: "Not Found: the MCP endpoint is /mcp" },
      id: null,
    });
  });
});

describe("a client that goes away", () => {
  it("cancels its call: the handler's signal fires and the call is logged as cancelled", async () => {
    const tag = `gone-${Date.now()}`;
    const aborter = new AbortController();
    const sent = fetch(server.url, {
      method: "POST",
      headers: MCP_HEADERS,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "test_slow", arguments: { ms: 60_000, tag } },
      }),
      signal: aborter.signal,
    }).catch((error: unknown) => error);
    await server.waitForLog((l) => l.tag === tag && l.msg === "test_slow started");
    const started = Date.now();
    aborter.abort();
    expect(await sent).toBeInstanceOf(Error);
    const call = await server.waitForLog(
      (l) => l.msg === "tool call" && l.tool === "test_slow" && l.reqId !== undefined,
      10_000,
    );
    expect(call.outcome).toBe("cancelled");
    expect(Date.now() - started).toBeLessThan(10_000);
    // The server keeps serving.
    expect((await post(server.url, { jsonrpc: "2.0", id: 2, method: "ping" })).json).toEqual({
      jsonrpc: "2.0",
      id: 2,
      result: {},
    });
  });
});
