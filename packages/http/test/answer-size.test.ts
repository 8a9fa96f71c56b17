import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { connect as tcpConnect } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { definePack, defineTool } from "@toolshed/schema";
import { MCP_HEADERS } from "@toolshed/test-support";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createHttpApp, type HttpApp } from "../src/index.js";

// Issue 18, item 1: a small request could build a huge answer, and a client that never read it
// kept it in memory. The pack mirrors the notes pack's create_note / get_note shapes.
const notes = new Map<string, string>();
const createNote = defineTool({
  name: "create_note",
  description: "Creates a note.",
  input: z.object({ title: z.string().describe("Title"), body: z.string().max(100_000).describe("Body") }),
  output: z.object({ title: z.string() }),
  handler: ({ title, body }) => {
    notes.set(title, body);
    return { title };
  },
});
const getNote = defineTool({
  name: "get_note",
  description: "Returns a note.",
  input: z.object({ title: z.string().describe("Title") }),
  output: z.object({ title: z.string(), body: z.string(), words: z.number() }),
  annotations: { readOnlyHint: true },
  handler: ({ title }) => ({ title, body: notes.get(title) ?? "", words: 0 }),
});
const pack = definePack({ name: "notes", tools: [createNote, getNote] });

const MiB = 1024 * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const CONTROL_BODY = "\u0001".repeat(100_000);

interface Captured {
  level: "warn" | "info" | "error";
  obj: Record<string, unknown>;
  msg: string;
}
function capturingLogger(lines: Captured[]) {
  const at = (level: Captured["level"]) => (obj: Record<string, unknown>, msg: string) =>
    lines.push({ level, obj, msg });
  return { error: at("error"), warn: at("warn"), info: at("info"), debug() {} };
}

const apps: HttpApp[] = [];
const servers: Server[] = [];
function app(options: Parameters<typeof createHttpApp>[0] = {}) {
  const made = createHttpApp({ packs: [pack], logger: capturingLogger([]), ...options });
  apps.push(made);
  return made;
}
afterEach(async () => {
  for (const s of servers.splice(0)) s.closeAllConnections();
  for (const s of servers.splice(0)) s.close();
  await Promise.all(apps.splice(0).map((a) => a.close({ graceMs: 0 })));
});

const rpc = (id: number, name: string, args: unknown) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});
const post = (body: unknown) =>
  new Request("http://localhost/mcp", { method: "POST", headers: MCP_HEADERS, body: JSON.stringify(body) });
const batchOf = (n: number) => Array.from({ length: n }, (_, i) => rpc(i + 2, "get_note", { title: "control" }));

async function withControlNote(made: HttpApp): Promise<void> {
  const res = await made.fetch(post(rpc(1, "create_note", { title: "control", body: CONTROL_BODY })));
  expect(res.status).toBe(200);
}

interface RpcAnswer {
  id: number;
  result: {
    isError?: boolean;
    content: { type: string; text: string }[];
    structuredContent?: { body?: string };
  };
}

describe("answer size (issue 18.1)", () => {
  it("JSON escapes a control character no larger than C1 needs: 6 bytes structured plus 7 in the text copy", async () => {
    const made = app();
    await withControlNote(made);
    const text = await (await made.fetch(post(rpc(2, "get_note", { title: "control" })))).text();
    const answer = JSON.parse(text) as RpcAnswer;
    expect(answer.result.structuredContent?.body).toBe(CONTROL_BODY);
    // "\u0001" in structuredContent (6 bytes) and "\\u0001" in the text block's JSON (7 bytes); nothing more.
    expect(Buffer.byteLength(text)).toBeGreaterThan(13 * 100_000);
    expect(Buffer.byteLength(text)).toBeLessThan(13 * 100_000 + 1_000);
  });

  it("a batch of 100 get_note answers at most 16 MiB: calls past the cap get a tool error, the rest are answered", async () => {
    const made = app();
    await withControlNote(made);
    const res = await made.fetch(post(batchOf(100)));
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(16 * MiB);
    const answers = JSON.parse(text) as RpcAnswer[];
    expect(answers.map((a) => a.id)).toEqual(Array.from({ length: 100 }, (_, i) => i + 2));
    const served = answers.filter((a) => !a.result.isError);
    // 1.3 MB each: twelve fit in 16 MiB, in request order.
    expect(served.map((a) => a.id)).toEqual(Array.from({ length: 12 }, (_, i) => i + 2));
    for (const a of served) expect(a.result.structuredContent?.body).toBe(CONTROL_BODY);
    const refused = answers.slice(12);
    for (const a of refused) {
      expect(a.result.isError).toBe(true);
      expect(a.result.content[0]?.text).toContain("the answer to this batch would exceed 16777216 bytes");
    }
    // 100 answers of 1.3 MB: seconds when the machine is idle, far more on a loaded one.
  }, 120_000);

  it("session mode: a batch of 100 get_note answers at most 16 MiB too, over its SSE stream", async () => {
    const made = app({ sessions: true });
    const init = await made.fetch(
      post({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } },
      }),
    );
    expect(init.status).toBe(200);
    await init.text();
    const session = init.headers.get("mcp-session-id") ?? "";
    const inSession = (body: unknown) =>
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: { ...MCP_HEADERS, "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" },
        body: JSON.stringify(body),
      });
    expect((await made.fetch(inSession({ jsonrpc: "2.0", method: "notifications/initialized" }))).status).toBe(202);
    const created = await made.fetch(inSession(rpc(1, "create_note", { title: "control", body: CONTROL_BODY })));
    await created.text();
    const res = await made.fetch(inSession(batchOf(100)));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const text = await res.text();
    // The SSE framing adds some bytes per event around the 16 MiB of answers.
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(16 * MiB + 100 * 100);
    const answers = text
      .split("\n")
      .filter((line) => line.startsWith("data: "))
      .map((line) => JSON.parse(line.slice(6)) as RpcAnswer);
    expect(answers.map((a) => a.id).sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 2));
    const served = answers.filter((a) => !a.result.isError);
    expect(served).toHaveLength(12);
    for (const a of served) expect(a.result.structuredContent?.body).toBe(CONTROL_BODY);
    for (const a of answers.filter((x) => x.result.isError)) {
      expect(a.result.content[0]?.text).toContain("the answer to this batch would exceed 16777216 bytes");
    }
  });

  it("one result over the per-result cap is a tool error the model can act on", async () => {
    const made = app({ maxResultBytes: MiB });
    await withControlNote(made);
    const res = await made.fetch(post(rpc(2, "get_note", { title: "control" })));
    expect(res.status).toBe(200);
    const answer = (await res.json()) as RpcAnswer;
    expect(answer.result.isError).toBe(true);
    expect(answer.result.structuredContent).toBeUndefined();
    const message = answer.result.content[0]?.text ?? "";
    expect(message).toContain("get_note");
    expect(message).toMatch(/result is too large: about \d+ bytes, more than the limit of 1048576 bytes/);
    expect(message).toContain("ask for fewer items or a shorter range");
    // Small results are unaffected.
    const small = (await (
      await made.fetch(post(rpc(3, "create_note", { title: "t", body: "x" })))
    ).json()) as RpcAnswer;
    expect(small.result.isError).toBeUndefined();
  });

  it("caps are options: a larger batch cap answers every call", async () => {
    const made = app({ maxBatchBytes: 64 * MiB });
    await withControlNote(made);
    const answers = (await (await made.fetch(post(batchOf(20)))).json()) as RpcAnswer[];
    expect(answers.filter((a) => a.result.isError)).toEqual([]);
  });
});

const UNREAD_WARNING = "closed a connection whose client did not read its answer within 500 ms";

/**
 * Serves `listener`, sends a batch of about 39 MB of answer (far more than the socket buffers on
 * both ends hold) and never reads it. Returns the server's open connections once the warning is
 * logged (after `settleMs` more at most while one is still open).
 */
async function neverReadBatch(listener: RequestListener, lines: Captured[], settleMs = 0): Promise<number> {
  const server = createServer(listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const body = JSON.stringify(batchOf(30));
  const socket = tcpConnect(port, "127.0.0.1");
  await new Promise<void>((resolve) => socket.once("connect", resolve));
  const connections = () => new Promise<number>((resolve) => server.getConnections((_e, n) => resolve(n)));
  socket.write(
    `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
      `Accept: application/json, text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  // Never read: the kernel buffers fill and the server's write cannot finish.
  socket.pause();
  const deadline = performance.now() + 10_000;
  while (!lines.some((l) => l.msg === UNREAD_WARNING) && performance.now() < deadline) await sleep(50);
  // The server side of the connection is gone (its unsent answer with it) while the client still holds its end.
  let open = await connections();
  for (let waited = 0; waited < settleMs && open > 0; waited += 50) {
    await sleep(50);
    open = await connections();
  }
  socket.destroy();
  return open;
}

describe("clients that do not read their answers (issue 18.1)", () => {
  it("node:http: the server closes a connection whose answer is not read within the write timeout, and logs it", async () => {
    const lines: Captured[] = [];
    const made = app({ maxBatchBytes: 64 * MiB, writeTimeoutMs: 500, logger: capturingLogger(lines) });
    await withControlNote(made);
    const open = await neverReadBatch(made.nodeListener, lines);
    expect(lines.filter((l) => l.level === "warn").map((l) => l.msg)).toEqual([UNREAD_WARNING]);
    expect(open).toBe(0);
    // The request counts as answered once node:http emits "close" for it, a tick or so after the cut.
    for (let waited = 0; waited < 2_000 && made.inFlight > 0; waited += 20) await sleep(20);
    expect(made.inFlight).toBe(0);
  }, 20_000);

  it("Fetch handler on @hono/node-server: the body stops when the client does not take it within the write timeout, and it is logged", async () => {
    const lines: Captured[] = [];
    const made = app({ maxBatchBytes: 64 * MiB, writeTimeoutMs: 500, logger: capturingLogger(lines) });
    await withControlNote(made);
    const open = await neverReadBatch(
      getRequestListener((request) => made.fetch(request)),
      lines,
      2_000,
    );
    expect(lines.filter((l) => l.level === "warn").map((l) => l.msg)).toEqual([UNREAD_WARNING]);
    expect(open).toBe(0);
    expect(made.inFlight).toBe(0);
  }, 20_000);

  it("Fetch handler: a client that reads gets the whole large answer, in chunks, with nothing logged", async () => {
    const lines: Captured[] = [];
    const made = app({ maxBatchBytes: 64 * MiB, writeTimeoutMs: 500, logger: capturingLogger(lines) });
    await withControlNote(made);
    const response = await made.fetch(post(batchOf(5)));
    expect(response.headers.get("content-type")).toBe("application/json");
    const answers = (await response.json()) as RpcAnswer[];
    expect(answers.map((a) => a.id)).toEqual([2, 3, 4, 5, 6]);
    expect(answers.every((a) => !a.result.isError)).toBe(true);
    await sleep(600);
    expect(lines.filter((l) => l.level === "warn")).toEqual([]);
  });
});
