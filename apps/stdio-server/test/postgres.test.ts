import { createTestSchema, pgReachable, TEST_DATABASE_URL, type TestSchema } from "@toolshed/storage/postgres";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, cleanup, connectClient, runCli } from "./helpers.js";

const reachable = await pgReachable();
if (!reachable) process.stderr.write(`PostgreSQL tests SKIPPED: ${TEST_DATABASE_URL} is not reachable\n`);

afterEach(cleanup);

describe("--database-url", () => {
  it("a URL that is not PostgreSQL is a usage error naming one that works, without its password", async () => {
    const { code, stderr } = await runCli(["--database-url", "mysql://me:secret@db/x"]);
    expect(code).toBe(2);
    expect(stderr).toContain(
      'toolshed-stdio: --database-url: database URL "mysql://me:***@db/x" is not a PostgreSQL URL; use postgres://USER:PASSWORD@HOST:5432/DATABASE',
    );
    expect(stderr).not.toContain("secret");
  });

  it("a database that does not answer is a one-line error at start, from the variable too", async () => {
    const { code, stderr } = await runCli(
      [],
      cleanEnv({ TOOLSHED_DATABASE_URL: "postgres://me:secret@127.0.0.1:1/x" }),
    );
    expect(code).toBe(2);
    expect(stderr).toMatch(/toolshed-stdio: cannot connect to PostgreSQL at postgres:\/\/me:\*\*\*@127\.0\.0\.1:1\/x /);
    expect(stderr).not.toContain("secret");
  });
});

describe.skipIf(!reachable)("on PostgreSQL", () => {
  let db: TestSchema;
  beforeAll(async () => {
    db = await createTestSchema();
  });
  afterAll(() => db?.drop());

  it("serves the packs from the database, and a second process sees the first one's writes", async () => {
    // The schema travels in the URL, as a user would pass it: options=-c search_path=…
    const url = `${db.url}?options=${encodeURIComponent(`-c search_path=${db.schema}`)}`;
    const first = await connectClient(["--database-url", url, "--demo"]);
    const note = await first.client.callTool({ name: "get_note", arguments: { title: "groceries" } });
    expect(note.structuredContent).toEqual({ title: "groceries", body: "milk, eggs", words: 2 });
    await first.client.callTool({ name: "create_note", arguments: { title: "from stdio", body: "kept in pg" } });
    expect(first.stderr()).toContain('"database":"postgres"');
    expect(first.stderr()).not.toContain(db.url);

    const second = await connectClient([], cleanEnv({ TOOLSHED_DATABASE_URL: url }));
    const seen = await second.client.callTool({ name: "get_note", arguments: { title: "from stdio" } });
    expect(seen.structuredContent).toMatchObject({ title: "from stdio", body: "kept in pg" });
    const rows = await db.pool().query("SELECT count(*)::int AS n FROM notes WHERE title = 'from stdio'");
    expect(rows.rows[0].n).toBe(1);
  }, 60_000);
});
