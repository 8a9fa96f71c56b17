import { ERROR_META_KEY } from "@toolshed/errors";
import { SqliteNotesStore } from "@toolshed/notes";
import { openSqlite } from "@toolshed/storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DriverNode, sqliteDriverNodes } from "./support/sqlite-driver-nodes.js";
import { idKey, StdioChild } from "./support/stdio-child.js";
import { tempDir } from "./support/temp-db.js";

type ToolResult = {
  isError?: boolean;
  content: Array<{ text: string }>;
  structuredContent?: { version: number; body: string };
  _meta?: Record<string, { kind: string; code: string; retryable: boolean }>;
};

let nextId = 0;

/** One tools/call over a child's stdin; resolves with the result of that call. */
async function callTool(child: StdioChild, name: string, args: object): Promise<ToolResult> {
  const id = `call-${++nextId}`;
  const lines = await child.exchange(
    JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } }),
    [idKey(id)],
    60_000,
  );
  const answer = lines.find((l) => l.ok && (l.value as { id?: unknown }).id === id);
  if (!answer?.ok) throw new Error(`no answer to ${name}: ${JSON.stringify(lines)}`);
  const { result, error } = answer.value as { result?: ToolResult; error?: unknown };
  if (!result) throw new Error(`${name} answered a JSON-RPC error: ${JSON.stringify(error)}`);
  return result;
}

const ROUNDS = 40;
const CREATES = 200;

/** What a tool error's class says when the database was busy (or locked) past the busy timeout. */
function busyOf(result: ToolResult): string | undefined {
  const meta = result._meta?.[ERROR_META_KEY];
  const text = result.content[0]?.text ?? "";
  return result.isError && (meta?.code === "unavailable" || /busy|locked/i.test(text)) ? text : undefined;
}

/**
 * Both servers on one file with the same SQLite driver, each driver that some Node here can run:
 * better-sqlite3 on this Node, node:sqlite on this Node from 22.16 on or else on the Node 24 of
 * node-lines. A driver no Node here can run is a skipped block that says why.
 */
function twoProcesses(run: Extract<DriverNode, { node: string }>) {
  const { driver, node } = run;
  const temp = tempDir("two-process");
  const db = temp.file("toolshed.db");
  let a: StdioChild;
  let b: StdioChild;

  beforeAll(async () => {
    const store = SqliteNotesStore.open(db);
    await store.createNote({ title: "shared", body: "v1", tags: [] });
    await store.close();
    const start = () =>
      StdioChild.start(["--db", db, "--sqlite-driver", driver], { TOOLSHED_LOG_LEVEL: "info" }, { node });
    [a, b] = await Promise.all([start(), start()]);
    // Each says which driver opened the file in its "ready" log line (stderr, which may trail stdout).
    for (const child of [a, b]) {
      for (let waited = 0; !child.stderr.includes("ready on stdio") && waited < 5_000; waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(child.stderr).toContain(`"sqliteDriver":"${driver}"`);
    }
  });

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    temp.remove();
  });

  it(`loses no update_note with expected_version when both write at once (${ROUNDS} rounds each)`, async () => {
    const successes: Array<{ by: string; version: number; body: string }> = [];
    let conflicts = 0;
    /** Writes ROUNDS times, each from the version it last saw; a conflict says the current one. */
    const writer = async (name: string, child: StdioChild) => {
      let known = 1;
      for (let round = 0; round < ROUNDS; round++) {
        const body = `${name} round ${round} over version ${known}`;
        const result = await callTool(child, "update_note", { title: "shared", body, expected_version: known });
        if (!result.isError) {
          const note = result.structuredContent as { version: number; body: string };
          expect(note.version).toBe(known + 1);
          expect(note.body).toBe(body);
          successes.push({ by: name, version: note.version, body });
          known = note.version;
          continue;
        }
        // A refusal is a conflict the caller can act on, never a busy database.
        expect(busyOf(result), "a busy error reached the caller").toBeUndefined();
        const meta = result._meta?.[ERROR_META_KEY];
        expect(meta, result.content[0]?.text).toMatchObject({ kind: "tool", code: "conflict", retryable: false });
        conflicts++;
        const current = /expected_version (\d+)/.exec(result.content[0]?.text ?? "")?.[1];
        expect(current, result.content[0]?.text).toBeDefined();
        known = Number(current);
      }
    };
    await Promise.all([writer("A", a), writer("B", b)]);

    const versions = successes.map((s) => s.version).sort((x, y) => x - y);
    // Every success made its own version: 2, 3, … with no gap and no version written twice.
    expect(versions).toEqual(Array.from({ length: successes.length }, (_, n) => n + 2));
    const last = successes.find((s) => s.version === versions.at(-1));
    const check = SqliteNotesStore.open(db);
    const note = await check.getNote("shared");
    await check.close();
    expect(note).toMatchObject({ version: successes.length + 1, body: last?.body });
    expect(successes.length + conflicts).toBe(2 * ROUNDS);
    expect(successes.some((s) => s.by === "A") && successes.some((s) => s.by === "B")).toBe(true);
    process.stderr.write(
      `[two-process ${driver}] ${successes.length} updates kept, ${conflicts} stale ones refused as conflicts\n`,
    );
  }, 180_000);

  it(`keeps every create_note when both create at once (${CREATES} each), with no busy error`, async () => {
    const started = Date.now();
    const writer = async (name: string, child: StdioChild) => {
      for (let round = 0; round < CREATES; round++) {
        const title = `race ${name} ${round}`;
        const result = await callTool(child, "create_note", { title, body: `by ${name}`, tags: ["race"] });
        expect(busyOf(result), "a busy error reached the caller").toBeUndefined();
        expect(result.isError, result.content[0]?.text).toBeFalsy();
      }
    };
    await Promise.all([writer("A", a), writer("B", b)]);
    const took = Date.now() - started;
    const check = SqliteNotesStore.open(db);
    try {
      for (const name of ["A", "B"]) {
        for (let round = 0; round < CREATES; round++) {
          expect(await check.getNote(`race ${name} ${round}`)).toMatchObject({ body: `by ${name}`, version: 1 });
        }
      }
    } finally {
      await check.close();
    }
    // Nothing more either: each note once.
    const raw = openSqlite(db);
    try {
      expect(raw.prepare("SELECT count(*) AS n FROM notes WHERE title LIKE 'race %'").get()).toEqual({
        n: 2 * CREATES,
      });
    } finally {
      raw.close();
    }
    process.stderr.write(`[two-process ${driver}] ${2 * CREATES} creates from two processes kept, in ${took} ms\n`);
  }, 180_000);

  it("reports a write lock held past the busy timeout as a retryable unavailable error, then succeeds", async () => {
    const locker = openSqlite(db);
    locker.exec("BEGIN IMMEDIATE");
    let held: number;
    try {
      const started = Date.now();
      // Both servers wait their busy timeout (5 s) at once, each on a different pack.
      const [note, account] = await Promise.all([
        callTool(a, "update_note", { title: "shared", body: "during the lock" }),
        callTool(b, "crm_create_account", {
          name: "Locked Out Inc",
          tier: "growth",
          arr: 10,
          idempotency_key: "lock-1",
        }),
      ]);
      held = Date.now() - started;
      for (const result of [note, account]) {
        expect(result.isError).toBe(true);
        expect(result._meta?.[ERROR_META_KEY]).toMatchObject({ kind: "tool", code: "unavailable", retryable: true });
        expect(result.content[0]?.text).toMatch(/busy/);
        expect(result.content[0]?.text).toMatch(/retry/);
      }
      // Reads go on while the lock is held (WAL).
      const read = await callTool(a, "get_note", { title: "shared" });
      expect(read.isError).toBeFalsy();
    } finally {
      locker.exec("ROLLBACK");
      locker.close();
    }
    expect(held).toBeGreaterThanOrEqual(4_000);
    const retried = await callTool(a, "update_note", { title: "shared", body: "after the lock" });
    expect(retried.isError).toBeFalsy();
    const created = await callTool(b, "crm_create_account", {
      name: "Locked Out Inc",
      tier: "growth",
      arr: 10,
      idempotency_key: "lock-1",
    });
    expect(created.isError).toBeFalsy();
    process.stderr.write(`[two-process ${driver}] busy calls answered after ${held} ms\n`);
  }, 120_000);
}

for (const run of sqliteDriverNodes()) {
  if (run.problem === undefined) {
    describe(`two server processes on one SQLite file, driver ${run.driver} (Node ${run.version})`, () =>
      twoProcesses(run));
  } else {
    // A visible skip: the run says which driver it did not cover, and why.
    describe.skip(`two server processes on one SQLite file, driver ${run.driver} (skipped: ${run.problem})`, () => {
      it("loses no write and lets no busy error reach a caller", () => {});
    });
  }
}
