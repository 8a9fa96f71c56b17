import { connectInMemory, createLogger, createServer } from "@toolshed/server";
import { createTestSchema, pgReachable, TEST_DATABASE_URL, type TestSchema } from "@toolshed/storage/postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DatabaseConnectError, openPacks, PackConfigError, redactDatabaseUrl } from "../src/index.js";
import { DEMO_WRITES } from "./demo-writes.js";

const reachable = await pgReachable();
if (!reachable) process.stderr.write(`PostgreSQL tests SKIPPED: ${TEST_DATABASE_URL} is not reachable\n`);

describe("openPacks with a database URL", () => {
  it("refuses a URL that is not PostgreSQL, naming one that would work", async () => {
    await expect(openPacks({ databaseUrl: "mysql://u:secret@db/x" })).rejects.toThrowError(PackConfigError);
    await expect(openPacks({ databaseUrl: "mysql://u:secret@db/x" })).rejects.toThrowError(
      'database URL "mysql://u:***@db/x" is not a PostgreSQL URL; use postgres://USER:PASSWORD@HOST:5432/DATABASE',
    );
  });

  it("a database that does not answer fails at start with where it looked, without the password", async () => {
    const error = await openPacks({ databaseUrl: "postgres://toolshed:hunter2@127.0.0.1:1/none" }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DatabaseConnectError);
    expect((error as Error).message).toMatch(
      /^cannot connect to PostgreSQL at postgres:\/\/toolshed:\*\*\*@127\.0\.0\.1:1\/none \(.+\); check --database-url/,
    );
    expect((error as Error).message).not.toContain("hunter2");
  });
});

describe.skipIf(!reachable)("openPacks on PostgreSQL", () => {
  let db: TestSchema;
  beforeAll(async () => {
    db = await createTestSchema();
  });
  afterAll(() => db?.drop());

  it("serves the three packs from one schema, seeds once across two openers, and readiness follows the pool", async () => {
    const options = { databaseUrl: db.url, databaseSchema: db.schema, demo: true, poolMax: 4 };
    // Two instances starting at once: migrations and demo seeding must not collide.
    const [a, b] = await Promise.all([openPacks(options), openPacks(options)]);
    expect(a.database).toBe("postgres");
    expect(await a.ready()).toBe(true);
    const logger = createLogger({ level: "silent" });
    const serverA = createServer({ name: "a", version: "1", packs: a.packs, logger });
    const serverB = createServer({ name: "b", version: "1", packs: b.packs, logger });
    const [clientA, clientB] = await Promise.all([connectInMemory(serverA), connectInMemory(serverB)]);

    const note = await clientA.callTool({ name: "get_note", arguments: { title: "groceries" } });
    expect(note.structuredContent).toEqual({ title: "groceries", body: "milk, eggs", words: 2 });
    const page = await clientB.callTool({ name: "list_notes", arguments: { limit: 100 } });
    const titles = (page.structuredContent as { notes: Array<{ title: string }> }).notes.map((n) => n.title);
    expect(titles.filter((t) => t === "groceries")).toHaveLength(1);

    // A write through one instance is read through the other.
    await clientA.callTool({ name: "create_note", arguments: { title: "pg-shared", body: "written by a" } });
    const seen = await clientB.callTool({ name: "get_note", arguments: { title: "pg-shared" } });
    expect(seen.structuredContent).toMatchObject({ title: "pg-shared", body: "written by a" });
    const tables = await db
      .pool()
      .query("SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = $1", [db.schema]);
    expect(tables.rows[0].n).toBeGreaterThan(3);

    await Promise.all([clientA.close(), clientB.close()]);
    await Promise.all([serverA.close(), serverB.close()]);
    await a.close();
    expect(await a.ready()).toBe(false);
    await a.close();
    expect(await b.ready()).toBe(true);
    await b.close();
  }, 60_000);
});

describe.skipIf(!reachable)("openPacks on PostgreSQL: versions and read-only databases", () => {
  let db: TestSchema;
  beforeAll(async () => {
    db = await createTestSchema();
  });
  afterAll(() => db?.drop());

  const tables = async () =>
    (
      await db
        .pool()
        .query("SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name", [
          db.schema,
        ])
    ).rows.map((r) => r.table_name as string);

  it("a database from a newer release is refused for every pack before anything is written", async () => {
    await db
      .pool()
      .query(
        "CREATE TABLE toolshed_migrations (scope TEXT NOT NULL, version INTEGER NOT NULL, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now(), PRIMARY KEY (scope, version))",
      );
    await db.pool().query("INSERT INTO toolshed_migrations (scope, version, name) VALUES ('tickets', 99, 'future')");
    const error = await openPacks({ databaseUrl: db.url, databaseSchema: db.schema }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PackConfigError);
    expect((error as Error).message).toBe(
      `database ${redactDatabaseUrl(db.url)} (schema ${db.schema}) has tickets schema version 99, newer than this release knows (4); upgrade Toolshed to a release that knows it, or use another database`,
    );
    // notes opens first: before the fix its tables were created and committed.
    expect(await tables()).toEqual(["toolshed_migrations"]);
    await db.pool().query("DROP TABLE toolshed_migrations");
  });

  it("readOnly on an empty schema is refused, and creates nothing", async () => {
    await expect(openPacks({ databaseUrl: db.url, databaseSchema: db.schema, readOnly: true })).rejects.toThrowError(
      `database ${redactDatabaseUrl(db.url)} (schema ${db.schema}) has no notes tables yet; --read-only does not create them: start once without --read-only to create them`,
    );
    expect(await tables()).toEqual([]);
  });

  it("readOnly serves current tables without migrating: on a read-only role every write tool is a clear tool error", async () => {
    await (await openPacks({ databaseUrl: db.url, databaseSchema: db.schema, demo: true })).close();
    const url = new URL(db.url);
    url.searchParams.set("options", "-c default_transaction_read_only=on");
    const opened = await openPacks({ databaseUrl: url.toString(), databaseSchema: db.schema, readOnly: true });
    const server = createServer({
      name: "ro",
      version: "1",
      packs: opened.packs,
      logger: createLogger({ level: "silent" }),
    });
    const client = await connectInMemory(server);
    const note = await client.callTool({ name: "get_note", arguments: { title: "groceries" } });
    expect(note.structuredContent).toMatchObject({ title: "groceries" });
    for (const [name, args] of DEMO_WRITES) {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError, name).toBe(true);
      expect(result._meta?.["toolshed.dev/error"], name).toMatchObject({
        code: "failed_precondition",
        retryable: false,
      });
      expect(JSON.stringify(result.content), name).toContain("the database is read-only");
    }
    await client.close();
    await server.close();
    await opened.close();
  }, 60_000);
});
