import { isToolError } from "@toolshed/errors";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MigrationError } from "../migrate.js";
import { PG_IDEMPOTENCY_TABLE_SQL, runIdempotentPg } from "./idempotency.js";
import { runPgMigrations } from "./migrate.js";
import { withPgTransaction } from "./pool.js";
import { toPgTsQuery } from "./search.js";
import { createTestSchema, pgReachable, TEST_DATABASE_URL, type TestSchema } from "./testing.js";

const reachable = await pgReachable();
if (!reachable) process.stderr.write(`PostgreSQL tests SKIPPED: ${TEST_DATABASE_URL} is not reachable\n`);

describe.skipIf(!reachable)("PostgreSQL helpers", () => {
  let db: TestSchema;
  beforeAll(async () => {
    db = await createTestSchema();
  });
  afterAll(() => db.drop());

  it("migrations run once, in order, and racing instances take turns", async () => {
    const migrations = [
      { version: 1, name: "things", up: "CREATE TABLE things (id SERIAL PRIMARY KEY, name TEXT NOT NULL)" },
      { version: 2, name: "things.note", up: "ALTER TABLE things ADD COLUMN note TEXT" },
    ];
    const [a, b] = [db.pool(), db.pool()];
    expect(await Promise.all([runPgMigrations(a, "t", migrations), runPgMigrations(b, "t", migrations)])).toEqual([
      2, 2,
    ]);
    await expect(runPgMigrations(a, "t", migrations.slice(0, 1))).rejects.toThrowError(MigrationError);
    await a.query(PG_IDEMPOTENCY_TABLE_SQL);
  });

  it("racing idempotent creates on two pools write one row and return one result", async () => {
    const pools = [db.pool(), db.pool()];
    const create = (i: number) =>
      withPgTransaction(pools[i % 2] as NonNullable<(typeof pools)[0]>, (client) =>
        runIdempotentPg(client, { scope: "things", key: "k1", args: { name: "x" } }, async () => {
          const row = (await client.query("INSERT INTO things (name) VALUES ('x') RETURNING id")).rows[0];
          return { id: row.id as number };
        }),
      );
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => create(i)));
    expect(new Set(results.map((r) => r.id)).size).toBe(1);
    expect((await db.pool().query("SELECT COUNT(*)::int AS n FROM things WHERE name = 'x'")).rows[0].n).toBe(1);
    const conflict = await withPgTransaction(db.pool(), (client) =>
      runIdempotentPg(client, { scope: "things", key: "k1", args: { name: "y" } }, async () => ({ id: 0 })),
    ).catch((e: unknown) => e);
    expect(isToolError(conflict)).toBe(true);
    expect((conflict as Error).message).toMatch(/already used with different arguments/);
  });

  it("any user text is a safe tsquery", async () => {
    const pool = db.pool();
    for (const text of ['"', "a & b | !c", "(x", "x:*", "NEAR", "'; DROP TABLE things; --", "日本語 café"]) {
      const q = toPgTsQuery(text);
      if (q === undefined) continue;
      await expect(pool.query("SELECT to_tsquery('simple', $1)", [q])).resolves.toBeDefined();
    }
    expect(toPgTsQuery("🎉 ***")).toBeUndefined();
    expect(toPgTsQuery("Milk eggs")).toBe("milk:* & eggs:*");
  });
});

describe.skipIf(!reachable)("createPgPool", () => {
  it("keeps its statement timeout when the URL sets options of its own", async () => {
    const { createPgPool } = await import("./pool.js");
    const url = new URL(TEST_DATABASE_URL);
    url.searchParams.set("options", "-c search_path=public");
    const pool = createPgPool(url.toString(), { statementTimeoutMs: 1234 });
    try {
      const rows = (
        await pool.query("SELECT current_setting('statement_timeout') AS t, current_setting('search_path') AS p")
      ).rows;
      expect(rows[0]).toEqual({ t: "1234ms", p: "public" });
    } finally {
      await pool.end();
    }
  });
});
