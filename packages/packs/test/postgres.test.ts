import { connectInMemory, createLogger, createServer } from "@toolshed/server";
import { createTestSchema, pgReachable, TEST_DATABASE_URL, type TestSchema } from "@toolshed/storage/postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DatabaseConnectError, openPacks, PackConfigError } from "../src/index.js";

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
    expect(a.backend).toBe("postgres");
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
