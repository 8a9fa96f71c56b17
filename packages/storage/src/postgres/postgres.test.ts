import { classifyError, isToolError } from "@toolshed/errors";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MigrationError } from "../migrate.js";
import { PG_IDEMPOTENCY_INDEX_SQL, PG_IDEMPOTENCY_TABLE_SQL, runIdempotentPg } from "./idempotency.js";
import { checkPgSchemas, readPgSchemaVersions, runPgMigrations } from "./migrate.js";
import { withPgTransaction } from "./pool.js";
import { PgCommonWords, toPgTsQuery } from "./search.js";
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

  it("common words come from the column's statistics: none before ANALYZE, then those starting lexemes in more than minRows rows", async () => {
    const pool = db.pool();
    await pool.query("CREATE TABLE docs (id SERIAL PRIMARY KEY, search TSVECTOR NOT NULL)");
    // Every row has "status"; one in ten "statistics"; one row "stats"; "rare" in one row.
    await pool.query(
      `INSERT INTO docs (search)
       SELECT to_tsvector('simple', 'status' || CASE WHEN i % 10 = 0 THEN ' statistics' ELSE '' END
                                    || CASE WHEN i = 7 THEN ' stats rare' ELSE '' END)
       FROM generate_series(1, 3000) AS i`,
    );
    const where = { table: "docs", column: "search", vector: "to_tsvector('simple', w.word)" };
    const words = ["status", "statistics", "stat", "rare", "Nothing"];
    expect(await new PgCommonWords(where).among(pool, words)).toEqual(new Set());
    await pool.query("ANALYZE docs");
    // Prefixes count every lexeme they start: "stat" is in 3,000 rows, "statistics" in 300.
    expect(await new PgCommonWords(where).among(pool, words)).toEqual(new Set(["status", "stat"]));
    expect(await new PgCommonWords(where, { minRows: 200 }).among(pool, words)).toEqual(
      new Set(["status", "statistics", "stat"]),
    );
    // Answers are kept: a word asked again is not looked up again until its time runs out.
    const kept = new PgCommonWords(where, { ttlMs: 60_000 });
    expect(await kept.among(pool, ["status"])).toEqual(new Set(["status"]));
    const forgotten = await pool.query("DELETE FROM pg_catalog.pg_statistic WHERE starelid = 'docs'::regclass");
    expect(forgotten.rowCount).toBeGreaterThan(0);
    expect(await new PgCommonWords(where).among(pool, ["status"])).toEqual(new Set());
    expect(await kept.among(pool, ["status"])).toEqual(new Set(["status"]));
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

describe.skipIf(!reachable)("PostgreSQL schema versions and read-only databases", () => {
  let db: TestSchema;
  beforeAll(async () => {
    db = await createTestSchema();
  });
  afterAll(() => db.drop());

  const tables = async () =>
    (
      await db
        .pool()
        .query("SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name", [
          db.schema,
        ])
    ).rows.map((r) => r.table_name as string);
  const items = {
    scope: "items",
    migrations: [{ version: 1, name: "items", up: "CREATE TABLE items (id SERIAL PRIMARY KEY)" }],
  };
  const others = {
    scope: "others",
    migrations: [{ version: 1, name: "others", up: "CREATE TABLE others (id SERIAL PRIMARY KEY)" }],
  };

  it("a database from a newer release is refused for every store before anything is written", async () => {
    const pool = db.pool();
    expect(await readPgSchemaVersions(pool)).toEqual(new Map());
    await pool.query(
      "CREATE TABLE toolshed_migrations (scope TEXT NOT NULL, version INTEGER NOT NULL, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now(), PRIMARY KEY (scope, version))",
    );
    await pool.query("INSERT INTO toolshed_migrations (scope, version, name) VALUES ('others', 99, 'future')");
    expect(await readPgSchemaVersions(pool)).toEqual(new Map([["others", 99]]));
    const label = `"${new URL(TEST_DATABASE_URL).pathname.slice(1)}" (schema ${db.schema})`;
    await expect(checkPgSchemas(pool, [items, others])).rejects.toThrowError(
      `database ${label} has others schema version 99, newer than this release knows (1); upgrade Toolshed to a release that knows it, or use another database`,
    );
    await expect(runPgMigrations(pool, "others", others.migrations)).rejects.toThrowError(MigrationError);
    expect(await tables()).toEqual(["toolshed_migrations"]);
  });

  it("read-only: a store whose tables need upgrading is refused, and writes are a clear tool error", async () => {
    const pool = db.pool();
    await expect(checkPgSchemas(pool, [items], { readonly: true })).rejects.toThrowError(
      /has no items tables yet, and a read-only open does not create them; open it once writable to create them$/,
    );
    await runPgMigrations(pool, "items", items.migrations);
    await expect(checkPgSchemas(pool, [items], { readonly: true })).resolves.toBeUndefined();
    // A standby, or a role whose transactions are read-only.
    const url = new URL(TEST_DATABASE_URL);
    url.searchParams.set("options", "-c default_transaction_read_only=on");
    const { createPgPool } = await import("./pool.js");
    const readOnly = createPgPool(url.toString(), { schema: db.schema });
    try {
      const error = await readOnly.query("INSERT INTO items DEFAULT VALUES").catch((e: unknown) => e);
      expect(classifyError(error)).toMatchObject({ code: "failed_precondition", retryable: false });
      expect(classifyError(error)?.message).toMatch(/^the database is read-only, so nothing was changed; /);
    } finally {
      await readOnly.end();
    }
  });

  it("idempotency keys expire after the retention, and each write prunes a bounded batch of its scope", async () => {
    const pool = db.pool();
    await pool.query(PG_IDEMPOTENCY_TABLE_SQL);
    await pool.query(PG_IDEMPOTENCY_INDEX_SQL);
    await pool.query("CREATE TABLE IF NOT EXISTS expiring (id SERIAL PRIMARY KEY, name TEXT)");
    const create = (key: string, name: string, scope = "expiring", retentionMs?: number) =>
      withPgTransaction(pool, (client) =>
        runIdempotentPg(
          client,
          { scope, key, args: { name }, ...(retentionMs === undefined ? {} : { retentionMs }) },
          async () => {
            const row = (await client.query("INSERT INTO expiring (name) VALUES ($1) RETURNING id", [name])).rows[0];
            return { id: row.id as number };
          },
        ),
      );
    const age = (hours: number, scope = "expiring") =>
      pool.query(`UPDATE toolshed_idempotency SET created_at = now() - interval '${hours} hours' WHERE scope = $1`, [
        scope,
      ]);
    const first = await create("k", "a");
    await age(23);
    expect(await create("k", "a")).toEqual(first);
    await expect(create("k", "b")).rejects.toThrowError(/already used with different arguments/);
    await age(25);
    const again = await create("k", "a");
    expect(again.id).not.toBe(first.id);
    expect(await create("k", "a")).toEqual(again);
    // A shorter retention from the store's options.
    await pool.query("UPDATE toolshed_idempotency SET created_at = now() - interval '2 hours' WHERE key = 'k'");
    expect((await create("k", "b", "expiring", 3_600_000)).id).not.toBe(again.id);

    const keys = async (scope: string) =>
      (await pool.query("SELECT count(*)::int AS n FROM toolshed_idempotency WHERE scope = $1", [scope])).rows[0].n;
    await pool.query(
      "INSERT INTO toolshed_idempotency (scope, key, fingerprint, created_at) SELECT 'expiring', 'old-' || i, 'f', now() - interval '30 hours' FROM generate_series(1, 250) i",
    );
    await pool.query(
      "INSERT INTO toolshed_idempotency (scope, key, fingerprint, created_at) VALUES ('elsewhere', 'o', 'f', now() - interval '30 hours')",
    );
    const before = await keys("expiring");
    await create("live", "x");
    expect(await keys("expiring")).toBe(before - 100 + 1);
    await create("live", "x");
    await create("live", "x");
    expect(await keys("expiring")).toBe(before - 250 + 1);
    expect(await keys("elsewhere")).toBe(1);
  });
});
