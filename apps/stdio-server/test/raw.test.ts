import { existsSync } from "node:fs";
import { openSqlite } from "@toolshed/storage";
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, INITIALIZE, INITIALIZED, spawnCli, tempDir } from "./helpers.js";
import { ALL_TOOLS } from "./tools.js";

afterEach(cleanup);

const call = (id: number, name: string, args: unknown) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

/** The database file can be opened, is intact, and takes a write lock at once. */
function expectDbClosedAndIntact(db: string) {
  // SQLite removes the WAL file when the last connection closes cleanly.
  expect(existsSync(`${db}-wal`)).toBe(false);
  const sqlite = openSqlite(db, { busyTimeoutMs: 0 });
  try {
    expect(sqlite.pragma("integrity_check", { simple: true })).toBe("ok");
    sqlite.exec("BEGIN IMMEDIATE; ROLLBACK");
    expect(sqlite.prepare("SELECT body FROM notes WHERE title = ?").pluck().get("groceries")).toBe("milk, eggs");
  } finally {
    sqlite.close();
  }
}

describe("raw stdio", () => {
  it("a line that is not JSON gets -32700 with id null, and the process keeps serving", async () => {
    const cli = spawnCli(["--db", tempDir().file("t.db"), "--demo"]);
    cli.send("not json\n");
    await cli.waitForLines(1);
    expect(cli.messages()[0]).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: "Parse error: the message is not valid JSON" },
    });
    cli.send(INITIALIZE);
    cli.send(INITIALIZED);
    cli.send({ jsonrpc: "2.0", id: 2, method: "ping" });
    cli.send(call(3, "get_note", { title: "groceries" }));
    await cli.waitForLines(4);
    const [, init, ping, note] = cli.messages();
    expect(init).toMatchObject({
      jsonrpc: "2.0",
      id: 1,
      result: { serverInfo: { name: "toolshed", version: "0.1.0" } },
    });
    expect(ping).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
    expect(note).toMatchObject({ id: 3, result: { structuredContent: { title: "groceries", body: "milk, eggs" } } });
    expect(cli.child.exitCode).toBeNull();
  });

  it("stdout carries only JSON-RPC lines, one answer per request, and stderr only JSON log lines", async () => {
    const cli = spawnCli(["--db", tempDir().file("t.db"), "--demo"]);
    cli.send(INITIALIZE);
    cli.send(INITIALIZED);
    cli.send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    cli.send(call(3, "get_note", { title: "groceries" }));
    cli.send(call(4, "search_notes", { query: "milk", limit: 999 }));
    cli.send(call(5, "no_such_tool", {}));
    cli.send(call(6, "get_note", { title: "nope" }));
    cli.send("{oops\n");
    cli.send({ jsonrpc: "2.0", id: 7, method: "no/such/method" });
    cli.send({ jsonrpc: "2.0", id: 8, method: "tools/list", params: [1] });
    cli.send({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { arguments: {} } });
    cli.send(call(10, "crm_get_account", { account_id: "acc_missing" }));
    await cli.waitForLines(11);
    cli.child.stdin.end();
    expect(await cli.exited).toEqual({ code: 0, signal: null });

    const lines = cli.lines();
    expect(lines).toHaveLength(11);
    const byId = new Map<unknown, Record<string, unknown>>();
    for (const line of lines) {
      const message = JSON.parse(line) as Record<string, unknown>;
      expect(message.jsonrpc).toBe("2.0");
      expect(byId.has(message.id)).toBe(false);
      byId.set(message.id, message);
    }
    expect(new Set(byId.keys())).toEqual(new Set([null, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]));
    const listed = byId.get(2)?.result as { tools: Array<{ name: string }> } | undefined;
    expect(listed?.tools.map((t) => t.name)).toEqual(ALL_TOOLS);
    expect(byId.get(4)).toMatchObject({ result: { isError: true } });
    expect(byId.get(5)).toEqual({
      jsonrpc: "2.0",
      id: 5,
      error: {
        code: -32602,
        message: "Unknown tool: no_such_tool. Closest tools: search_notes, create_note, delete_note",
      },
    });
    expect(byId.get(6)).toMatchObject({ result: { isError: true } });
    expect(byId.get(null)).toMatchObject({ error: { code: -32700 } });
    expect(byId.get(7)).toMatchObject({ error: { code: -32601 } });
    expect(byId.get(8)).toMatchObject({ error: { code: -32600 } });
    expect(byId.get(9)).toMatchObject({ error: { code: -32602 } });
    expect(byId.get(10)).toMatchObject({ result: { isError: true } });

    const logs = cli
      .stderr()
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as { level: number; time: number; msg: string; tool?: string });
    for (const log of logs) {
      expect(typeof log.level).toBe("number");
      expect(typeof log.time).toBe("number");
      expect(typeof log.msg).toBe("string");
    }
    expect(logs[0]).toMatchObject({ msg: "ready on stdio", tools: ALL_TOOLS.length, demo: true });
    expect(logs.filter((l) => l.msg === "tool call").map((l) => l.tool)).toEqual(
      expect.arrayContaining(["get_note", "search_notes", "crm_get_account"]),
    );
    expect(logs.at(-1)).toMatchObject({ msg: "stopped", reason: "stdin closed" });
  });

  it("exits 0 when stdin closes, with the database closed and intact", async () => {
    const db = tempDir().file("t.db");
    const cli = spawnCli(["--db", db, "--demo"]);
    cli.send(INITIALIZE);
    cli.send(call(2, "create_note", { title: "before exit", body: "kept" }));
    await cli.waitForLines(2);
    expect(cli.messages()[1]).toMatchObject({ id: 2, result: { structuredContent: { title: "before exit" } } });
    cli.child.stdin.end();
    expect(await cli.exited).toEqual({ code: 0, signal: null });
    expectDbClosedAndIntact(db);
  });

  it("a last request sent without its newline before stdin closes is answered too", async () => {
    const cli = spawnCli(["--db", tempDir().file("t.db"), "--demo"]);
    await cli.waitForLog("ready on stdio");
    cli.child.stdin.end(
      `${JSON.stringify(INITIALIZE)}\n${JSON.stringify(call(2, "get_note", { title: "groceries" }))}`,
    );
    expect(await cli.exited).toEqual({ code: 0, signal: null });
    expect(cli.messages().map((m) => m.id)).toEqual([1, 2]);
    expect(cli.messages()[1]).toMatchObject({ result: { structuredContent: { title: "groceries" } } });
  });

  it("answers every request sent just before stdin closes, then exits 0", async () => {
    const db = tempDir().file("t.db");
    const cli = spawnCli(["--db", db, "--demo"]);
    await cli.waitForLog("ready on stdio");
    let text = `${JSON.stringify(INITIALIZE)}\n`;
    for (let id = 2; id <= 201; id++) text += `${JSON.stringify(call(id, "search_notes", { query: "milk" }))}\n`;
    cli.child.stdin.end(text);
    expect(await cli.exited).toEqual({ code: 0, signal: null });
    const ids = cli.messages().map((m) => m.id);
    expect(ids).toHaveLength(201);
    expect(new Set(ids).size).toBe(201);
    expectDbClosedAndIntact(db);
  });

  it("exits 0 with the database closed when the reader of stdout goes away", async () => {
    const db = tempDir().file("t.db");
    const cli = spawnCli(["--db", db, "--demo"]);
    await cli.waitForLog("ready on stdio");
    cli.child.stdout.destroy();
    cli.send({ jsonrpc: "2.0", id: 1, method: "ping" });
    expect(await cli.exited).toEqual({ code: 0, signal: null });
    expect(cli.stderr()).toContain('"reason":"stdout failed"');
    expect(cli.stderr()).not.toContain("unexpected failure");
    expectDbClosedAndIntact(db);
  });

  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`${signal} stops it with exit code 0 and the database closed`, async () => {
      const db = tempDir().file("t.db");
      const cli = spawnCli(["--db", db, "--demo"]);
      cli.send(INITIALIZE);
      await cli.waitForLines(1);
      await cli.waitForLog("ready on stdio");
      cli.child.kill(signal);
      expect(await cli.exited).toEqual({ code: 0, signal: null });
      expect(cli.stderr()).toContain(`"reason":"${signal}"`);
      expectDbClosedAndIntact(db);
    });
  }
});
