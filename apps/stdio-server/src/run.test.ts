import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { openSqlite } from "@toolshed/storage";
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

// node:sqlite is the default from Node 22.16; before it, better-sqlite3.
const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
const NODE_SQLITE = major > 22 || (major === 22 && minor >= 16);

function betterSqlite3Loads(): boolean {
  try {
    openSqlite(":memory:", { driver: "better-sqlite3" }).close();
    return true;
  } catch {
    return false;
  }
}

describe("runStdioServer SQLite driver", () => {
  it("the ready line names the driver in use", async () => {
    const s = await start(1000);
    expect(await s.waitForLog("ready on stdio")).toMatchObject({
      db: s.db,
      sqliteDriver: NODE_SQLITE ? "node" : "better-sqlite3",
    });
  });

  it.skipIf(NODE_SQLITE)("--sqlite-driver node before Node 22.16 is a StdioUsageError saying what works", async () => {
    const config = parseStdioArgs(["--db", tempDb(), "--sqlite-driver", "node", "--log-level", "silent"], {});
    const error = await runStdioServer(config, { handleSignals: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StdioUsageError);
    expect((error as Error).message).toBe(
      `--sqlite-driver node cannot be used: node:sqlite needs Node 22.16 or later and this is Node ${process.version}; run on Node 22.16 or later, or start with --sqlite-driver auto (better-sqlite3 here)`,
    );
  });

  it.skipIf(!NODE_SQLITE || betterSqlite3Loads())(
    "--sqlite-driver better-sqlite3 where its addon cannot load is a StdioUsageError saying what works",
    async () => {
      const db = tempDb();
      const config = parseStdioArgs(["--db", db, "--sqlite-driver", "better-sqlite3", "--log-level", "silent"], {});
      const error = await runStdioServer(config, { handleSignals: false }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StdioUsageError);
      expect((error as Error).message).toMatch(
        /^--sqlite-driver better-sqlite3 cannot be used: better-sqlite3 (is not installed|cannot be loaded in Node v\S+ \(\w+\)); start with --sqlite-driver auto \(node:sqlite, built into this Node\), or install it for Node v\S+ \(npm install better-sqlite3@12\.11\.1\)$/,
      );
      expect(existsSync(db)).toBe(false);
    },
  );
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
