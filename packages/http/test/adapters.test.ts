import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { definePack, defineTool } from "@toolshed/schema";
import { MCP_HEADERS, silentLogger } from "@toolshed/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createHttpApp, type HttpApp, type RequestSummary } from "../src/index.js";

// One pipeline, two adapters: the same request gets the same answer through the Fetch handler
// and through the node:http listener, and the same request-log summary.

const echo = defineTool({
  name: "echo",
  description: "Says the text back.",
  input: z.object({ text: z.string().max(100).describe("What to say") }),
  output: z.object({ text: z.string() }),
  annotations: { readOnlyHint: true },
  handler: ({ text }) => ({ text }),
});

const summaries: RequestSummary[] = [];
let http: HttpApp;
let server: Server;
let base: string;

beforeAll(async () => {
  http = createHttpApp({
    packs: [definePack({ name: "echo", tools: [echo] })],
    logger: silentLogger,
    tokens: [{ id: "ci", token: "ci-token-0123456789abcdef", scopes: ["tools:read", "tools:write"] }],
    cors: { origins: ["https://app.example"] },
    onRequest: (summary) => summaries.push(summary),
  });
  server = createServer(http.nodeListener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.close();
  await http.close({ graceMs: 0 });
});

const auth = { authorization: "Bearer ci-token-0123456789abcdef" };
const rpc = (body: unknown) => JSON.stringify(body);
const call = (id: number, args: unknown) =>
  rpc({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo", arguments: args } });

interface Case {
  name: string;
  status: number;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

const cases: Case[] = [
  { name: "health", status: 200, method: "GET", path: "/healthz" },
  { name: "ready", status: 200, method: "GET", path: "/readyz" },
  { name: "unknown path", status: 404, method: "GET", path: "/nope" },
  { name: "resource metadata", status: 200, method: "GET", path: "/.well-known/oauth-protected-resource/mcp" },
  { name: "no token", status: 401, method: "POST", path: "/mcp", headers: MCP_HEADERS, body: call(1, { text: "hi" }) },
  {
    name: "a call",
    status: 200,
    method: "POST",
    path: "/mcp",
    headers: { ...MCP_HEADERS, ...auth },
    body: call(2, { text: "hi" }),
  },
  {
    name: "invalid arguments",
    status: 200,
    method: "POST",
    path: "/mcp",
    headers: { ...MCP_HEADERS, ...auth },
    body: call(3, { text: 5 }),
  },
  { name: "not JSON", status: 400, method: "POST", path: "/mcp", headers: { ...MCP_HEADERS, ...auth }, body: "{oops" },
  {
    name: "GET without sessions",
    status: 405,
    method: "GET",
    path: "/mcp",
    headers: { ...auth, accept: "text/event-stream" },
  },
  {
    name: "token in the URL",
    status: 400,
    method: "POST",
    path: "/mcp?access_token=x",
    headers: MCP_HEADERS,
    body: call(4, {}),
  },
  {
    name: "preflight",
    status: 204,
    method: "OPTIONS",
    path: "/mcp",
    headers: { origin: "https://app.example", "access-control-request-method": "POST" },
  },
  {
    name: "preflight from another origin",
    status: 403,
    method: "OPTIONS",
    path: "/mcp",
    headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
  },
];

async function viaNode(c: Case) {
  const res = await fetch(`${base}${c.path}`, { method: c.method, headers: { ...c.headers }, body: c.body ?? null });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

async function viaFetch(c: Case) {
  const url = `${base}${c.path}`;
  const res = await http.fetch(new Request(url, { method: c.method, headers: { ...c.headers }, body: c.body ?? null }));
  return { status: res.status, headers: res.headers, text: await res.text() };
}

// Headers both must agree on; the rest (date, connection, content-length) is the adapters' own.
const COMPARED = [
  "content-type",
  "www-authenticate",
  "allow",
  "access-control-allow-origin",
  "access-control-allow-methods",
];
const pick = (headers: Headers) => Object.fromEntries(COMPARED.map((h) => [h, headers.get(h)]));
// Error references are random: compare their shape.
const stable = (text: string) => text.replace(/ref [0-9a-f]{8}/g, "ref <ref>");

describe("the Fetch handler and the node:http listener give the same answers", () => {
  it.each(cases)("$name", async (c) => {
    const [node, web] = [await viaNode(c), await viaFetch(c)];
    expect(node.status).toBe(c.status);
    expect(web.status).toBe(node.status);
    expect(pick(web.headers)).toEqual(pick(node.headers));
    expect(stable(web.text)).toBe(stable(node.text));
    expect(node.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(web.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("answers a call with the tool's result, and keeps a client's own request id", async () => {
    const headers = { ...MCP_HEADERS, ...auth, "x-request-id": "trace-42" };
    const res = await fetch(`${base}/mcp`, { method: "POST", headers, body: call(9, { text: "hi" }) });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toBe("trace-42");
    expect(await res.json()).toEqual({
      jsonrpc: "2.0",
      id: 9,
      result: { content: [{ type: "text", text: '{\n  "text": "hi"\n}' }], structuredContent: { text: "hi" } },
    });
  });

  it("reports each request once to onRequest, with the JSON-RPC method, tool, outcome and token label", async () => {
    summaries.length = 0;
    const headers = { ...MCP_HEADERS, ...auth, "x-request-id": "summary-1" };
    await (await fetch(`${base}/mcp`, { method: "POST", headers, body: call(10, { text: 5 }) })).text();
    await (
      await http.fetch(
        new Request(`${base}/mcp`, {
          method: "POST",
          headers: { ...headers, "x-request-id": "summary-2" },
          body: call(11, { text: "ok" }),
        }),
      )
    ).text();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const mine = summaries.filter((s) => s.reqId.startsWith("summary-"));
    expect(mine.map(({ durationMs, remote, ...rest }) => rest)).toEqual([
      {
        reqId: "summary-1",
        method: "POST",
        path: "/mcp",
        status: 200,
        rpc: "tools/call",
        tool: "echo",
        outcome: "validation",
        tokenId: "ci",
      },
      {
        reqId: "summary-2",
        method: "POST",
        path: "/mcp",
        status: 200,
        rpc: "tools/call",
        tool: "echo",
        outcome: "ok",
        tokenId: "ci",
      },
    ]);
    expect(mine[0]?.remote).toBe("127.0.0.1");
  });
});

describe("a body read before the endpoint (a framework's parser)", () => {
  async function behind(middleware: (req: IncomingMessage, next: () => void) => void) {
    const server = createServer((req, res) => middleware(req, () => http.nodeListener(req, res)));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: { ...MCP_HEADERS, ...auth },
        body: call(1, { text: "hi" }),
      });
      return { status: res.status, body: await res.json() };
    } finally {
      server.close();
    }
  }

  it("is taken from req.body when the parser left it there", async () => {
    const res = await behind((req, next) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        Object.assign(req, { body: JSON.parse(Buffer.concat(chunks).toString()) });
        next();
      });
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: 1, result: { structuredContent: { text: "hi" } } });
  });

  it("is a 400 that says so when the stream was drained and nothing kept, never a hang", async () => {
    const res = await behind((req, next) => {
      req.resume();
      req.on("end", next);
    });
    expect(res).toEqual({
      status: 400,
      body: {
        jsonrpc: "2.0",
        id: null,
        error: {
          code: -32000,
          message:
            "Bad Request: the request body was read before it reached the MCP endpoint; leave it unread, or keep the parsed body on req.body",
        },
      },
    });
  });
});
