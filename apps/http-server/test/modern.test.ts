// The 2026-07-28 wire on the stateless endpoint, as raw HTTP: discover, the _meta envelope and its
// errors, header checks, status codes, cache hints, multi round-trip requests and subscriptions/listen.
import { modernEnvelope as envelope, modernPost as modern, MODERN_VERSION as V } from "@toolshed/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  FIXTURE,
  type HttpProcess,
  killChildren,
  openStream,
  post,
  removeTempDirs,
  sseMessages,
  startServer,
} from "./helpers.js";

let server: HttpProcess;
let sessions: HttpProcess;
beforeAll(async () => {
  [server, sessions] = await Promise.all([
    startServer(["--demo"], { script: FIXTURE }),
    startServer(["--demo", "--sessions"], { script: FIXTURE }),
  ]);
});
afterAll(async () => {
  await killChildren();
  removeTempDirs();
});

describe("2026-07-28 over HTTP", () => {
  it("server/discover: versions, capabilities, server info, result type and cache hints", async () => {
    const res = await modern(server.url, 1, "server/discover");
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: {
        supportedVersions: [V],
        capabilities: {
          tools: { listChanged: false },
          logging: {},
          resources: { listChanged: true, subscribe: true },
          prompts: { listChanged: false },
          completions: {},
          // crm_bulk_update_tier may run as a task.
          extensions: { "io.modelcontextprotocol/tasks": {} },
        },
        resultType: "complete",
        ttlMs: 300_000,
        cacheScope: "public",
        _meta: { "io.modelcontextprotocol/serverInfo": { name: "toolshed", version: expect.any(String) } },
      },
    });
  });

  it("a missing envelope is 400 -32602; an unknown version is 400 -32022 with the supported list", async () => {
    const bare = await post(
      server.url,
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      {
        "mcp-protocol-version": V,
        "mcp-method": "tools/list",
      },
    );
    expect(bare.status).toBe(400);
    expect(bare.json).toMatchObject({ id: 2, error: { code: -32602 } });
    expect((bare.json as { error: { message: string } }).error.message).toMatch(
      /io\.modelcontextprotocol\/protocolVersion/,
    );
    const noCaps = await post(
      server.url,
      {
        jsonrpc: "2.0",
        id: 3,
        method: "tools/list",
        params: { _meta: { "io.modelcontextprotocol/protocolVersion": V } },
      },
      { "mcp-protocol-version": V, "mcp-method": "tools/list" },
    );
    expect(noCaps.status).toBe(400);
    expect(noCaps.json).toMatchObject({ id: 3, error: { code: -32602 } });
    const future = await post(
      server.url,
      {
        jsonrpc: "2.0",
        id: 4,
        method: "tools/list",
        params: { _meta: { ...envelope(), "io.modelcontextprotocol/protocolVersion": "2099-01-01" } },
      },
      { "mcp-protocol-version": "2099-01-01", "mcp-method": "tools/list" },
    );
    expect(future.status).toBe(400);
    expect(future.json).toMatchObject({
      id: 4,
      error: { code: -32022, data: { supported: [V], requested: "2099-01-01" } },
    });
  });

  it("headers that contradict the body are 400 -32020; a base64 Mcp-Name is decoded", async () => {
    const version = await modern(server.url, 5, "tools/list", {}, { "mcp-protocol-version": "2025-11-25" });
    expect(version.status).toBe(400);
    expect(version.json).toMatchObject({ id: 5, error: { code: -32020 } });
    const method = await modern(server.url, 6, "tools/list", {}, { "mcp-method": "prompts/list" });
    expect(method.json).toMatchObject({ id: 6, error: { code: -32020 } });
    const noName = await post(
      server.url,
      { jsonrpc: "2.0", id: 7, method: "tools/call", params: { _meta: envelope(), name: "get_note", arguments: {} } },
      { "mcp-protocol-version": V, "mcp-method": "tools/call" },
    );
    expect(noName.status).toBe(400);
    expect((noName.json as { error: { message: string } }).error.message).toMatch(/Mcp-Name header is required/);
    const wrong = await modern(server.url, 8, "tools/call", { name: "get_note", arguments: {} }, { "mcp-name": "x" });
    expect(wrong.json).toMatchObject({ id: 8, error: { code: -32020 } });
    const encoded = `=?base64?${Buffer.from("get_note").toString("base64")}?=`;
    const ok = await modern(
      server.url,
      9,
      "tools/call",
      { name: "get_note", arguments: { title: "groceries" } },
      { "mcp-name": encoded },
    );
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({
      id: 9,
      result: { resultType: "complete", structuredContent: { title: "groceries" } },
    });
  });

  it("unknown and 2025-only methods are 404 -32601; a batch is 400", async () => {
    for (const method of ["initialize", "ping", "logging/setLevel", "resources/subscribe", "nope/nothing"]) {
      const res = await modern(server.url, 10, method);
      expect(res.status, method).toBe(404);
      expect(res.json, method).toMatchObject({ id: 10, error: { code: -32601 } });
    }
    const batch = await post(
      server.url,
      [{ jsonrpc: "2.0", id: 11, method: "tools/list", params: { _meta: envelope() } }],
      { "mcp-protocol-version": V, "mcp-method": "tools/list" },
    );
    expect(batch.status).toBe(400);
    expect(batch.json).toMatchObject({ id: 11, error: { code: -32600 } });
  });

  it("a missing resource is -32602 with its uri; lists carry cache hints, private for an authenticated caller", async () => {
    const missing = await modern(server.url, 12, "resources/read", { uri: "note://no-such-note-here" });
    expect(missing.json).toMatchObject({ id: 12, error: { code: -32602, data: { uri: "note://no-such-note-here" } } });
    for (const method of ["tools/list", "prompts/list", "resources/templates/list"]) {
      const res = await modern(server.url, 13, method);
      expect(res.json, method).toMatchObject({
        result: { resultType: "complete", ttlMs: 300_000, cacheScope: "public" },
      });
    }
    const list = await modern(server.url, 14, "resources/list");
    expect(list.json).toMatchObject({ result: { ttlMs: 0, cacheScope: "public" } });
    const read = await modern(server.url, 15, "resources/read", { uri: "note://groceries" });
    expect(read.json).toMatchObject({ result: { resultType: "complete", ttlMs: 0, cacheScope: "public" } });
  });

  it("logs only when the request asks for them, on its own SSE stream", async () => {
    const quiet = await modern(server.url, 16, "tools/call", { name: "test_progress", arguments: { steps: 2 } });
    expect(quiet.headers.get("content-type")).toMatch(/application\/json/);
    expect(quiet.text).not.toContain("notifications/message");
    const loud = await modern(server.url, 17, "tools/call", {
      name: "test_progress",
      arguments: { steps: 2 },
      _meta: envelope({}, { "io.modelcontextprotocol/logLevel": "info" }),
    });
    expect(loud.headers.get("content-type")).toMatch(/text\/event-stream/);
    const messages = sseMessages(loud.text);
    expect(messages.filter((m) => m.method === "notifications/message")).toHaveLength(2);
    expect(messages.at(-1)).toMatchObject({ id: 17, result: { resultType: "complete" } });
  });

  it("elicitation is a multi round trip: input_required, then the retry with the answer completes", async () => {
    const caps = { elicitation: {} };
    const args = { name: "test_confirm", arguments: { action: "deploy" } };
    const first = await modern(server.url, 20, "tools/call", { ...args, _meta: envelope(caps) });
    const r1 = (first.json as { result: Record<string, unknown> }).result;
    expect(r1).toMatchObject({
      resultType: "input_required",
      inputRequests: { confirm: { method: "elicitation/create", params: { message: "Really deploy?" } } },
    });
    expect(typeof r1.requestState).toBe("string");
    const retry = await modern(server.url, 21, "tools/call", {
      ...args,
      _meta: envelope(caps),
      inputResponses: { confirm: { action: "accept", content: { ok: true } } },
      requestState: r1.requestState,
    });
    expect(retry.json).toMatchObject({
      id: 21,
      result: { resultType: "complete", structuredContent: { action: "deploy", confirmed: true } },
    });
    const tampered = await modern(server.url, 22, "tools/call", {
      ...args,
      _meta: envelope(caps),
      inputResponses: { confirm: { action: "accept", content: { ok: true } } },
      requestState: `${String(r1.requestState).slice(0, -2)}xx`,
    });
    expect(tampered.json).toMatchObject({ id: 22, error: { code: -32602 } });
    const otherArgs = await modern(server.url, 23, "tools/call", {
      name: "test_confirm",
      arguments: { action: "delete everything" },
      _meta: envelope(caps),
      requestState: r1.requestState,
    });
    expect((otherArgs.json as { error: { message: string } }).error.message).toMatch(/belongs to another request/);
  });

  it("asking for a capability the request did not declare is 400 -32021", async () => {
    const res = await modern(server.url, 24, "tools/call", { name: "test_confirm", arguments: { action: "x" } });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      id: 24,
      error: { code: -32021, data: { requiredCapabilities: { elicitation: {} } } },
    });
  });

  it("subscriptions/listen: acknowledged first, then updates of a watched note, tagged with the listen id", async () => {
    const stream = await openStream(
      server.url,
      {
        jsonrpc: "2.0",
        id: "listen-1",
        method: "subscriptions/listen",
        params: {
          _meta: envelope(),
          notifications: {
            toolsListChanged: true,
            resourcesListChanged: true,
            resourceSubscriptions: ["note://watched"],
          },
        },
      },
      { "mcp-protocol-version": V, "mcp-method": "subscriptions/listen" },
    );
    expect(stream.contentType).toMatch(/text\/event-stream/);
    const next = stream.next;
    const tag = { "io.modelcontextprotocol/subscriptionId": "listen-1" };
    expect(await next()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: { _meta: tag, notifications: { resourcesListChanged: true, resourceSubscriptions: ["note://watched"] } },
    });
    const created = await modern(server.url, 30, "tools/call", {
      name: "create_note",
      arguments: { title: "watched", body: "now it exists" },
    });
    expect(created.json).toMatchObject({ result: { resultType: "complete" } });
    expect(await next()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/resources/updated",
      params: { _meta: tag, uri: "note://watched" },
    });
    expect(await next()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/resources/list_changed",
      params: { _meta: tag },
    });
    stream.close();
  });

  it("with --sessions, a 2026-07-28 request is answered without a session and opens none", async () => {
    const res = await modern(sessions.url, 40, "tools/list");
    expect(res.status).toBe(200);
    expect(res.headers.get("mcp-session-id")).toBeNull();
    expect(res.json).toMatchObject({ id: 40, result: { resultType: "complete" } });
  });
});
