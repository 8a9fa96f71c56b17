import { describe, expect, it } from "vitest";
import {
  checkIdempotencyRetention,
  DEFAULT_IDEMPOTENCY_RETENTION_MS,
  IDEMPOTENCY_INDEX_SQL,
  IDEMPOTENCY_TABLE_SQL,
  runIdempotent,
} from "./idempotency.js";
import { openSqlite } from "./sqlite.js";

const HOUR = 3_600_000;

function setup() {
  const db = openSqlite(":memory:");
  db.exec(IDEMPOTENCY_TABLE_SQL);
  db.exec(IDEMPOTENCY_INDEX_SQL);
  db.exec("CREATE TABLE things (id INTEGER PRIMARY KEY, name TEXT)");
  let clock = Date.parse("2026-03-01T12:00:00Z");
  const create = (name: string, options: { scope?: string; key?: string; retentionMs?: number } = {}) =>
    runIdempotent(
      db,
      {
        scope: options.scope ?? "things",
        key: options.key ?? "k1",
        args: { name },
        now: new Date(clock),
        ...(options.retentionMs === undefined ? {} : { retentionMs: options.retentionMs }),
      },
      () => {
        const info = db.prepare("INSERT INTO things (name) VALUES (?)").run(name);
        return { id: Number(info.lastInsertRowid), name };
      },
    );
  const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
  return {
    db,
    create,
    advance: (ms: number) => {
      clock += ms;
    },
    things: () => count("SELECT COUNT(*) AS n FROM things"),
    keys: (scope = "things") => count(`SELECT COUNT(*) AS n FROM toolshed_idempotency WHERE scope = '${scope}'`),
  };
}

describe("idempotency keys expire", () => {
  it("are kept for 24 hours by default, then forgotten: the same key runs the create again", () => {
    expect(DEFAULT_IDEMPOTENCY_RETENTION_MS).toBe(24 * HOUR);
    const s = setup();
    const first = s.create("a");
    s.advance(24 * HOUR - 1);
    expect(s.create("a")).toEqual(first);
    expect(() => s.create("b")).toThrowError(/idempotency_key 'k1' was already used with different arguments/);
    expect(s.things()).toBe(1);
    s.advance(2);
    const again = s.create("a");
    expect(again.id).not.toBe(first.id);
    expect(s.things()).toBe(2);
    // The new record has its own 24 hours.
    s.advance(23 * HOUR);
    expect(s.create("a")).toEqual(again);
  });

  it("a configured retention replaces the default", () => {
    const s = setup();
    const first = s.create("a", { retentionMs: HOUR });
    s.advance(HOUR + 1);
    expect(s.create("b", { retentionMs: HOUR })).not.toEqual(first);
    expect(s.things()).toBe(2);
  });

  it("expired keys are pruned on write, a bounded batch of the writing scope at a time", () => {
    const s = setup();
    for (let i = 0; i < 250; i++) s.create(`old-${i}`, { key: `old-${i}` });
    s.create("other", { scope: "others", key: "o" });
    s.advance(25 * HOUR);
    s.create("live", { key: "live" });
    expect(s.keys()).toBe(250 - 100 + 1);
    s.create("live", { key: "live" });
    s.create("live", { key: "live" });
    expect(s.keys()).toBe(1);
    // Another scope keeps its keys until it writes itself (its retention may differ).
    expect(s.keys("others")).toBe(1);
  });

  it("the retention must be a positive number of milliseconds", () => {
    expect(checkIdempotencyRetention(undefined)).toBe(DEFAULT_IDEMPOTENCY_RETENTION_MS);
    expect(checkIdempotencyRetention(60_000)).toBe(60_000);
    expect(checkIdempotencyRetention(Number.POSITIVE_INFINITY)).toBe(Number.POSITIVE_INFINITY);
    for (const bad of [0, -1, Number.NaN, 0.5]) {
      expect(() => checkIdempotencyRetention(bad)).toThrowError(
        `idempotencyRetentionMs must be a whole number of milliseconds of 1 or more, or Infinity to keep keys forever (got ${bad})`,
      );
    }
  });
});
