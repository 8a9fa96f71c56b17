import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MigrationError } from "../migrate.js";
import { openPostgresStore } from "./open-store.js";
import { createPgPool, type PgPool, pgIdentifier } from "./pool.js";
import { createTestSchema, pgReachable, TEST_DATABASE_URL, type TestSchema } from "./testing.js";

const reachable = await pgReachable();
if (!reachable) process.stderr.write(`PostgreSQL tests SKIPPED: ${TEST_DATABASE_URL} is not reachable\n`);

const MIGRATIONS = [{ version: 1, name: "things", up: "CREATE TABLE things (id INTEGER PRIMARY KEY)" }];

describe.skipIf(!reachable)("openPostgresStore", () => {
  let admin: PgPool;
  let db: TestSchema;
  const schemas: string[] = [];
  beforeAll(async () => {
    admin = createPgPool(TEST_DATABASE_URL, { max: 1 });
    db = await createTestSchema();
  });
  afterAll(async () => {
    for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${pgIdentifier(schema)} CASCADE`);
    await admin.end();
    await db.drop();
  });
  const freshName = (prefix: string) => {
    const name = `${prefix}_${randomBytes(5).toString("hex")}`;
    schemas.push(name);
    return name;
  };
  /** Connections to the test database whose application_name is `name`. */
  const connections = async (name: string) =>
    Number(
      (await admin.query("SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1", [name])).rows[0].n,
    );
  /**
   * The connections still open after up to 5 s: a closed client's backend leaves pg_stat_activity
   * a moment after its socket ends (longer on a loaded machine); a leaked one stays.
   */
  const connectionsLeft = async (name: string) => {
    const deadline = Date.now() + 5000;
    for (;;) {
      const open = await connections(name);
      if (open === 0 || Date.now() > deadline) return open;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  it("from a URL: creates the schema, migrates, names its connections and ends the pool on release", async () => {
    const schema = freshName("toolshed_open");
    const scope = freshName("scope");
    const store = await openPostgresStore(TEST_DATABASE_URL, { scope, migrations: MIGRATIONS, schema, max: 2 });
    const { rows } = await store.pool.query("SELECT current_schema() AS s, current_setting('application_name') AS a");
    expect(rows[0]).toEqual({ s: schema, a: `toolshed-${scope}` });
    expect((await store.pool.query("SELECT to_regclass('things') IS NOT NULL AS t")).rows[0].t).toBe(true);
    await store.release();
    await store.release();
    expect(store.pool.ended).toBe(true);
    expect(await connectionsLeft(`toolshed-${scope}`)).toBe(0);
  });

  it("on a given pool: migrates and leaves the pool open on release", async () => {
    const pool = db.pool();
    const store = await openPostgresStore({ pool }, { scope: "given", migrations: MIGRATIONS });
    expect(store.pool).toBe(pool);
    await store.release();
    expect((await pool.query("SELECT count(*)::int AS n FROM things")).rows[0].n).toBe(0);
  });

  it("a failed migration ends the pool it made and leaves no connection behind", async () => {
    const scope = freshName("broken");
    const broken = [{ version: 1, name: "broken", up: "CREATE TABLE nope (" }];
    await expect(
      openPostgresStore(TEST_DATABASE_URL, { scope, migrations: broken, schema: freshName("toolshed_open") }),
    ).rejects.toThrow(/syntax error/);
    expect(await connectionsLeft(`toolshed-${scope}`)).toBe(0);
  });

  it("readonly checks the tables instead of migrating, and creates no schema", async () => {
    const schema = freshName("toolshed_open");
    await expect(
      openPostgresStore(TEST_DATABASE_URL, { scope: "absent", migrations: MIGRATIONS, schema, readonly: true }),
    ).rejects.toThrowError(MigrationError);
    const found = await admin.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema]);
    expect(found.rowCount).toBe(0);
  });
});
