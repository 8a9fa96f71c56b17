import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { legacyInitialize } from "@toolshed/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connect,
  FIXTURE,
  type HttpProcess,
  killChildren,
  post,
  removeTempDirs,
  resultText,
  startServer,
} from "./helpers.js";

let server: HttpProcess;

beforeAll(async () => {
  server = await startServer(["--demo", "--sessions", "--session-idle-timeout", "2s"], { script: FIXTURE });
});
afterAll(async () => {
  await killChildren();
  removeTempDirs();
});

const init = legacyInitialize();

describe("sessions mode with the SDK client", () => {
  it("opens a session, lists tools, calls get_note and keeps the contract texts", async () => {
    const { client, transport } = await connect(server.url);
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["get_note", "create_note", "search_tickets", "crm_search_accounts"]));
    const ok = await client.callTool({ name: "get_note", arguments: { title: "groceries" } });
    expect(ok.structuredContent).toEqual({ title: "groceries", body: "milk, eggs", words: 2 });
    const c6 = await client.callTool({ name: "search_notes", arguments: { query: "milk", limit: 999 } });
    expect(resultText(c6)).toBe("Invalid arguments for tool search_notes:\nlimit: must be at most 50 (got 999)");
    const c8 = await client.callTool({ name: "get_note", arguments: { title: "grocerie" } });
    expect(resultText(c8)).toBe("Error executing tool get_note: No note 'grocerie'. Closest titles: groceries");
    const c12 = await client.callTool({ name: "nope", arguments: {} }).catch((e: unknown) => e);
    expect(c12).toBeInstanceOf(McpError);
    expect((c12 as McpError).code).toBe(-32602);
    expect((c12 as McpError).message).toContain("Unknown tool: nope");
    await transport.terminateSession();
    await client.close();
  });

  it("offers resource subscriptions, which need a session", async () => {
    const { client, transport } = await connect(server.url);
    expect(client.getServerCapabilities()?.resources).toEqual({ listChanged: true, subscribe: true });
    expect(await client.subscribeResource({ uri: "note://groceries" })).toEqual({});
    await transport.terminateSession();
    await client.close();
  });

  it("receives progress notifications before the result", async () => {
    const { client, transport } = await connect(server.url);
    const progress: number[] = [];
    const result = await client.callTool({ name: "test_progress", arguments: { steps: 3 } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    expect(result.structuredContent).toEqual({ done: 3 });
    expect(progress).toEqual([1, 2, 3]);
    await transport.terminateSession();
    await client.close();
  });

  it("lets a tool ask the client's model (sampling), which needs a session", async () => {
    const transport = new StreamableHTTPClientTransport(new URL(server.url));
    const client = new Client({ name: "sampler", version: "1.0.0" }, { capabilities: { sampling: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      // Content may be one block or a list of blocks (2025-11-25).
      const content = request.params.messages[0]?.content;
      const first = Array.isArray(content) ? content[0] : content;
      const question = first?.type === "text" ? first.text : "";
      return { model: "test", role: "assistant", content: { type: "text", text: `echo: ${question}` } };
    });
    await client.connect(transport);
    const result = await client.callTool({ name: "test_ask", arguments: { question: "2+2?" } });
    expect(result.structuredContent).toEqual({ answer: "echo: 2+2?" });
    await transport.terminateSession();
    await client.close();
  });

  it("DELETE ends a session; the id is then unknown (404)", async () => {
    const { client, transport } = await connect(server.url);
    const id = transport.sessionId as string;
    await transport.terminateSession();
    const res = await post(server.url, { jsonrpc: "2.0", id: 2, method: "tools/list" }, { "mcp-session-id": id });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null });
    await client.close();
  });
});

describe("sessions mode on the wire", () => {
  it("a request without a session id is 400, an unknown one 404", async () => {
    const none = await post(server.url, { jsonrpc: "2.0", id: 2, method: "tools/list" });
    expect(none.status).toBe(400);
    expect(none.json).toEqual({
      jsonrpc: "2.0",
      error: { code: -32000, message: "Bad Request: Mcp-Session-Id header is required" },
      id: null,
    });
    const unknown = await post(
      server.url,
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      { "mcp-session-id": "00000000-0000-0000-0000-000000000000" },
    );
    expect(unknown.status).toBe(404);
  });

  it("initialize answers with an Mcp-Session-Id; GET opens the session's SSE stream", async () => {
    const res = await post(server.url, init);
    expect(res.status).toBe(200);
    const id = res.headers.get("mcp-session-id");
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const controller = new AbortController();
    const stream = await fetch(server.url, {
      headers: { accept: "text/event-stream", "mcp-session-id": id as string },
      signal: controller.signal,
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toBe("text/event-stream");
    controller.abort();
    const gone = await fetch(server.url, { method: "DELETE", headers: { "mcp-session-id": id as string } });
    expect(gone.status).toBe(200);
  });

  it("invalid JSON-RPC is answered before reaching a session (-32700, -32600)", async () => {
    const bad = await post(server.url, "{nope");
    expect(bad.status).toBe(400);
    expect((bad.json as { error: { code: number } }).error.code).toBe(-32700);
    const invalid = await post(server.url, { jsonrpc: "2.0", id: 4, method: "ping", params: [] });
    expect(invalid.json).toEqual({
      jsonrpc: "2.0",
      id: 4,
      error: { code: -32600, message: 'Invalid Request: "params" must be an object' },
    });
  });

  it("an upper-case Accept opens a session as a lower-case one does (media types are case-insensitive)", async () => {
    const res = await post(server.url, init, { accept: "APPLICATION/JSON, TEXT/EVENT-STREAM" });
    expect(res.status).toBe(200);
    expect(res.headers.get("mcp-session-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("PUT is 405 with Allow: GET, POST, DELETE", async () => {
    const res = await fetch(server.url, { method: "PUT" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, POST, DELETE");
  });

  it("closes a session left idle longer than --session-idle-timeout", async () => {
    const res = await post(server.url, init);
    const id = res.headers.get("mcp-session-id") as string;
    const alive = await post(
      server.url,
      { jsonrpc: "2.0", id: 2, method: "ping" },
      { "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" },
    );
    expect(alive.status).toBe(200);
    await server.waitForLog((l) => l.msg === "session closed" && l.sessionId === id, 20_000);
    const after = await post(server.url, { jsonrpc: "2.0", id: 3, method: "ping" }, { "mcp-session-id": id });
    expect(after.status).toBe(404);
  });
});
