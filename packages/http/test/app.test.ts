import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { definePack, defineTool } from "@toolshed/schema";
import { createServer as createToolshedServer } from "@toolshed/server";
import { connect, MCP_HEADERS } from "@toolshed/test-support";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createHttpApp, type HttpApp, HttpConfigError } from "../src/index.js";

const silent = { error() {}, warn() {}, info() {}, debug() {} };

const add = defineTool({
  name: "add",
  description: "Adds two numbers.",
  input: z.object({ a: z.number().describe("First"), b: z.number().describe("Second") }),
  output: z.number(),
  annotations: { readOnlyHint: true },
  handler: ({ a, b }) => a + b,
});
const wait = defineTool({
  name: "wait",
  description: "Waits, then says done.",
  input: z.object({ ms: z.number().describe("How long") }),
  output: z.object({ done: z.boolean() }),
  annotations: { readOnlyHint: true },
  handler: async ({ ms }) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return { done: true };
  },
});
const pack = definePack({ name: "math", tools: [add, wait] });

const apps: HttpApp[] = [];
const servers: Server[] = [];
function app(options: Parameters<typeof createHttpApp>[0] = {}) {
  const made = createHttpApp({ packs: [pack], logger: silent, ...options });
  apps.push(made);
  return made;
}
afterEach(async () => {
  for (const s of servers.splice(0)) s.close();
  await Promise.all(apps.splice(0).map((a) => a.close({ graceMs: 0 })));
});

const call = (id: number, name: string, args: unknown) =>
  new Request("http://localhost/mcp", {
    method: "POST",
    headers: MCP_HEADERS,
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } }),
  });

describe("createHttpApp", () => {
  it("answers through fetch(), with no server of its own", async () => {
    const res = await app().fetch(call(1, "add", { a: 2, b: 3 }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: { content: [{ type: "text", text: "5" }], structuredContent: { result: 5 } },
    });
  });

  it("mounts in a team's own Node HTTP server with getRequestListener, for the SDK client", async () => {
    const http = app();
    const server = createServer(getRequestListener(http.fetch));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { client } = await connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["add", "wait"]);
    expect((await client.callTool({ name: "add", arguments: { a: 1, b: 1 } })).structuredContent).toEqual({
      result: 2,
    });
    await client.close();
  });

  it("serves an existing Toolshed server and leaves it open on close", async () => {
    const toolshed = createToolshedServer({ name: "mine", version: "9.9.9", packs: [pack], logger: silent });
    const http = app({ server: toolshed });
    const res = await http.fetch(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: MCP_HEADERS,
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
        }),
      }),
    );
    expect(((await res.json()) as { result: { serverInfo: unknown } }).result.serverInfo).toEqual({
      name: "mine",
      version: "9.9.9",
    });
    await http.close();
    expect(toolshed.runtime.listTools({ readOnly: false }).length).toBe(2);
    await toolshed.close();
  });

  it("/readyz follows the ready probe, and fails once closing; /mcp then answers 503", async () => {
    let ready = false;
    const http = app({ ready: () => ready });
    const probe = () => http.fetch(new Request("http://localhost/readyz"));
    expect((await probe()).status).toBe(503);
    expect(await (await probe()).json()).toEqual({ status: "not ready" });
    ready = true;
    expect((await probe()).status).toBe(200);
    expect(await (await probe()).json()).toEqual({ status: "ready" });
    await http.close();
    const closing = await probe();
    expect(closing.status).toBe(503);
    expect(await closing.json()).toEqual({ status: "shutting down" });
    const health = await http.fetch(new Request("http://localhost/healthz"));
    expect(health.status).toBe(200);
    const mcp = await http.fetch(call(1, "add", { a: 1, b: 2 }));
    expect(mcp.status).toBe(503);
    expect(((await mcp.json()) as { error: { message: string } }).error.message).toBe(
      "Service Unavailable: the server is shutting down",
    );
  });

  it("close() waits for calls in flight before it resolves", async () => {
    const http = app();
    const order: string[] = [];
    const answer = http.fetch(call(1, "wait", { ms: 300 })).then(async (res) => {
      order.push(`answered ${res.status}`);
      return res.json();
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(http.inFlight).toBe(1);
    await http.close({ graceMs: 10_000 }).then(() => order.push("closed"));
    expect(order).toEqual(["answered 200", "closed"]);
    expect(((await answer) as { result: { structuredContent: unknown } }).result.structuredContent).toEqual({
      done: true,
    });
  });

  it("refuses a body over maxBodyBytes with 413 in stateless mode too", async () => {
    const res = await app({ maxBodyBytes: 100 }).fetch(call(1, "add", { a: 1, b: "x".repeat(200) }));
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({
      jsonrpc: "2.0",
      error: { code: -32000, message: "Payload Too Large: Request body must not exceed 100 bytes" },
      id: null,
    });
  });

  it("refuses to run without authentication on a non-loopback address", () => {
    expect(() => createHttpApp({ packs: [pack], logger: silent, host: "0.0.0.0" })).toThrow(HttpConfigError);
    const withTokens = app({
      host: "0.0.0.0",
      tokens: [{ id: "t", token: "tttttttttttttttttttt", scopes: ["tools:read"] }],
    });
    expect(withTokens.server.name).toBe("toolshed");
  });
});
