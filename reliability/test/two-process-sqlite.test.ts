import { ERROR_META_KEY } from "@toolshed/errors";
import { SqliteNotesStore } from "@toolshed/notes";
import { openSqlite } from "@toolshed/storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

describe("two server processes on one SQLite file", () => {
  const temp = tempDir("two-process");
  const db = temp.file("toolshed.db");
  let a: StdioChild;
  let b: StdioChild;

  beforeAll(async () => {
    const store = SqliteNotesStore.open(db);
    await store.createNote({ title: "shared", body: "v1", tags: [] });
    await store.close();
    [a, b] = await Promise.all([StdioChild.start(["--db", db]), StdioChild.start(["--db", db])]);
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
      `[two-process] ${successes.length} updates kept, ${conflicts} stale ones refused as conflicts\n`,
    );
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
    process.stderr.write(`[two-process] busy calls answered after ${held} ms\n`);
  }, 120_000);
});
