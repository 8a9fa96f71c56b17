import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { parseStdioArgs, StdioUsageError } from "./args.js";
import { InFlightTransport } from "./in-flight.js";
import { type RunningStdioServer, runStdioServer } from "./run.js";

const dirs: string[] = [];
const running: RunningStdioServer[] = [];

afterEach(async () => {
  await Promise.allSettled(running.splice(0).map((r) => r.stop("test over")));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDb(): string {
  const dir = mkdtempSync(join(tmpdir(), "toolshed-stdio-unit-"));
  dirs.push(dir);
  return join(dir, "t.db");
}

const line = (message: object) => `${JSON.stringify(message)}\n`;
const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "unit", version: "1" } },
};
const GET = {
  jsonrpc: "2.0",
  id: 2,
  method: "tools/call",
  params: { name: "get_note", arguments: { title: "groceries" } },
};

/** A server on in-memory streams whose stdout nobody reads until `read()`, so answers stay in flight. */
async function start(graceMs: number, db = tempDb()) {
  const stdin = new PassThrough();
  const stdout = new PassThrough({ highWaterMark: 16 });
  const logStream = new PassThrough();
  let logs = "";
  logStream.on("data", (chunk: Buffer) => {
    logs += chunk.toString("utf8");
  });
  const config = parseStdioArgs(["--db", db, "--demo"], {});
  const server = await runStdioServer(config, {
    stdin,
    stdout,
    logDestination: logStream,
    handleSignals: false,
    graceMs,
  });
  running.push(server);
  let out = "";
  const read = () =>
    stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
    });
  const logLines = () =>
    logs
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const waitForLog = async (msg: string) => {
    for (let i = 0; i < 200 && !logLines().some((l) => l.msg === msg); i++) await new Promise((r) => setTimeout(r, 50));
    return logLines().find((l) => l.msg === msg);
  };
  return { server, stdin, db, read, out: () => out, logLines, waitForLog };
}

const settledWithin = (promise: Promise<unknown>, ms: number) =>
  Promise.race([promise.then(() => true), new Promise((r) => setTimeout(() => r(false), ms))]);

describe("runStdioServer stopping", () => {
  it("waits for requests still unanswered when stdin closes, then answers them and closes the database", async () => {
    const s = await start(60_000);
    s.stdin.end(line(INIT) + line(GET));
    expect(await s.waitForLog("stopping")).toMatchObject({ reason: "stdin closed", pending: 2 });
    expect(await settledWithin(s.server.stopped, 300)).toBe(false);
    s.read();
    expect(await s.server.stopped).toBe("stdin closed");
    const answers = s
      .out()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { id: number; result: { structuredContent?: unknown } });
    expect(answers.map((a) => a.id)).toEqual([1, 2]);
    expect(answers[1]?.result.structuredContent).toEqual({ title: "groceries", body: "milk, eggs", words: 2 });
    expect(s.logLines().at(-1)).toMatchObject({ msg: "stopped", reason: "stdin closed" });
    expect(existsSync(`${s.db}-wal`)).toBe(false);
  });

  it("gives up on unanswered requests after the grace period and still closes the database", async () => {
    const s = await start(200);
    s.stdin.end(line(INIT) + line(GET));
    expect(await s.server.stopped).toBe("stdin closed");
    expect(s.logLines().find((l) => l.msg === "stopped with unanswered requests")).toMatchObject({ pending: 2 });
    expect(existsSync(`${s.db}-wal`)).toBe(false);
  });

  it("stop() stops once; later calls give the same result", async () => {
    const s = await start(1000);
    s.read();
    const first = s.server.stop("asked");
    expect(s.server.stop("again")).toBe(first);
    expect(await first).toBe("asked");
    expect(await s.server.stopped).toBe("asked");
    expect(s.logLines().filter((l) => l.msg === "stopped")).toHaveLength(1);
  });
});

describe("runStdioServer start-up errors", () => {
  it("a database path that cannot be created is a StdioUsageError with a hint", async () => {
    const config = parseStdioArgs(["--db", "/proc/x/y.db", "--log-level", "silent"], {});
    const error = await runStdioServer(config, { handleSignals: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StdioUsageError);
    expect((error as Error).message).toMatch(
      /^cannot create the folder for database \/proc\/x\/y\.db .*choose a writable path$/,
    );
  });
});

class FakeTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  sent: JSONRPCMessage[] = [];
  async start() {}
  async send(message: JSONRPCMessage) {
    this.sent.push(message);
  }
  async close() {
    this.onclose?.();
  }
}

describe("InFlightTransport", () => {
  it("counts requests until they are answered or cancelled", async () => {
    const inner = new FakeTransport();
    const tracked = new InFlightTransport(inner);
    const seen: JSONRPCMessage[] = [];
    tracked.onmessage = (m) => seen.push(m);
    inner.onmessage?.({ jsonrpc: "2.0", id: 1, method: "ping" });
    inner.onmessage?.({ jsonrpc: "2.0", id: "b", method: "tools/list" });
    inner.onmessage?.({ jsonrpc: "2.0", method: "notifications/initialized" });
    expect(seen).toHaveLength(3);
    expect(tracked.pending).toBe(2);
    let idle = false;
    const waiting = tracked.idle().then(() => {
      idle = true;
    });
    await tracked.send({ jsonrpc: "2.0", id: 1, result: {} });
    expect(tracked.pending).toBe(1);
    await tracked.send({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x" } });
    expect(idle).toBe(false);
    inner.onmessage?.({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "b" } });
    await waiting;
    expect(idle).toBe(true);
    expect(tracked.pending).toBe(0);
    expect(inner.sent).toHaveLength(2);
  });

  it("passes close through to its listener", async () => {
    const inner = new FakeTransport();
    const tracked = new InFlightTransport(inner);
    let closed = 0;
    tracked.onclose = () => closed++;
    await tracked.close();
    expect(closed).toBe(1);
  });
});
