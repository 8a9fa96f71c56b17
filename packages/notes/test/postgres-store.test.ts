import { classifyError } from "@toolshed/errors";
import { MigrationError } from "@toolshed/storage";
import {
  createTestSchema,
  pgReachable,
  runPgMigrations,
  TEST_DATABASE_URL,
  type TestSchema,
} from "@toolshed/storage/postgres";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NOTES_PG_MIGRATIONS, PostgresNotesStore } from "../src/postgres/index.js";
import { steppingClock } from "./helpers.js";
import { describeNotesStoreContract } from "./store-contract.js";

// Throws under CI=true when PostgreSQL is down, so CI cannot pass by skipping.
const reachable = await pgReachable();
if (!reachable) process.stderr.write(`PostgresNotesStore tests SKIPPED: ${TEST_DATABASE_URL} is not reachable\n`);

describe.skipIf(!reachable)("PostgresNotesStore", () => {
  // A fresh schema for every store the contract suite makes, dropped after the test.
  describeNotesStoreContract("PostgresNotesStore on a fresh schema", async () => {
    const db = await createTestSchema();
    const store = await PostgresNotesStore.open({ pool: db.pool({ max: 5 }) }, { now: steppingClock() });
    return { store, cleanup: () => db.drop() };
  });

  describe("on PostgreSQL", () => {
    let db: TestSchema;
    beforeEach(async () => {
      db = await createTestSchema();
    });
    afterEach(() => db.drop());

    it("opens from a URL into its own schema, keeps notes across reopen, and close ends its pool", async () => {
      const schema = `${db.schema}_url`;
      const first = await PostgresNotesStore.open(db.url, { schema, max: 2 });
      try {
        await first.createNote({ title: "groceries", body: "milk, eggs", tags: ["home"] });
      } finally {
        await first.close();
      }
      await expect(first.getNote("groceries")).rejects.toThrow("PostgresNotesStore is closed");
      const second = await PostgresNotesStore.open(db.url, { schema, max: 2 });
      try {
        expect(await second.getNote("groceries")).toMatchObject({ body: "milk, eggs", tags: ["home"], version: 1 });
        expect((await second.searchNotes("eggs", { limit: 5 })).map((h) => h.title)).toEqual(["groceries"]);
      } finally {
        await second.close();
        await db.pool().query(`DROP SCHEMA "${schema}" CASCADE`);
      }
    });

    it("a pool passed in stays open after close; migrations run once and record their versions", async () => {
      const pool = db.pool({ max: 2 });
      const [a, b] = await Promise.all([
        PostgresNotesStore.open({ pool }),
        PostgresNotesStore.open({ pool: db.pool({ max: 2 }) }),
      ]);
      await a.close();
      await b.close();
      const versions = await pool.query(
        "SELECT version FROM toolshed_migrations WHERE scope = 'notes' ORDER BY version",
      );
      expect(versions.rows.map((r) => r.version)).toEqual(NOTES_PG_MIGRATIONS.map((m) => m.version));
    });

    it("refuses a database written by a newer release, and leaves it alone", async () => {
      const pool = db.pool({ max: 2 });
      await (await PostgresNotesStore.open({ pool })).close();
      await pool.query("INSERT INTO toolshed_migrations (scope, version, name) VALUES ('notes', 99, 'future')");
      const error = await PostgresNotesStore.open({ pool }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MigrationError);
      expect((error as Error).message).toBe(
        `database "${new URL(TEST_DATABASE_URL).pathname.slice(1)}" (schema ${db.schema}) has notes schema version 99, newer than this release knows (${NOTES_PG_MIGRATIONS.length}); upgrade Toolshed to a release that knows it, or use another database`,
      );
    });

    it("a database that cannot be reached fails to open with a retryable unavailable error", async () => {
      const error = await PostgresNotesStore.open("postgres://postgres@127.0.0.1:1/test", {
        connectionTimeoutMs: 2000,
      }).catch((e: unknown) => e);
      expect(classifyError(error)).toMatchObject({ code: "unavailable", retryable: true });
    });

    it("two instances on two pools share notes and idempotency keys, also when racing", async () => {
      const [a, b] = await Promise.all([
        PostgresNotesStore.open({ pool: db.pool({ max: 4 }) }),
        PostgresNotesStore.open({ pool: db.pool({ max: 4 }) }),
      ]);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 === 0 ? a : b).createNote({ title: "shared", body: "once" }, { idempotencyKey: "same" }),
        ),
      );
      for (const result of results) expect(result).toEqual(results[0]);
      expect((await a.listNotes({ limit: 10 })).notes.map((n) => n.title)).toEqual(["shared"]);
      expect(await b.getNote("shared")).toEqual(results[0]);
      // Different keys racing for one title: one wins, the others get the SQLite store's conflict.
      const settled = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 === 0 ? a : b).createNote({ title: "contested", body: `try ${i}` }, { idempotencyKey: `k${i}` }),
        ),
      );
      expect(settled.filter((s) => s.status === "fulfilled")).toHaveLength(1);
      for (const s of settled.filter((s) => s.status === "rejected")) {
        expect((s as PromiseRejectedResult).reason.message).toBe(
          "A note titled 'contested' already exists; use update_note to change it",
        );
      }
      const keys = await db.pool().query("SELECT count(*)::int AS n FROM toolshed_idempotency WHERE key LIKE 'k%'");
      expect(keys.rows[0].n).toBe(1);
      await a.close();
      await b.close();
    });

    it("concurrent updates with the same expected version: one wins, the others conflict", async () => {
      const [a, b] = await Promise.all([
        PostgresNotesStore.open({ pool: db.pool({ max: 3 }) }),
        PostgresNotesStore.open({ pool: db.pool({ max: 3 }) }),
      ]);
      await a.createNote({ title: "todo", body: "v1" });
      const settled = await Promise.allSettled(
        Array.from({ length: 6 }, (_, i) =>
          (i % 2 === 0 ? a : b).updateNote("todo", { body: `by ${i}` }, { expectedVersion: 1 }),
        ),
      );
      expect(settled.filter((s) => s.status === "fulfilled")).toHaveLength(1);
      expect(await a.getNote("todo")).toMatchObject({ version: 2 });
      await a.close();
      await b.close();
    });

    it("upgrading a version 3 database rebuilds the search vectors: its notes are found by the parts of ERR-4581", async () => {
      const pool = db.pool({ max: 2 });
      await runPgMigrations(pool, "notes", NOTES_PG_MIGRATIONS.slice(0, 3));
      await pool.query(
        "INSERT INTO notes (title, body, created_at, updated_at) VALUES ('incident', 'Error code ERR-4581 again', now(), now())",
      );
      const store = await PostgresNotesStore.open({ pool });
      expect((await store.searchNotes("4581", { limit: 5 })).map((h) => h.title)).toEqual(["incident"]);
      const versions = await pool.query("SELECT max(version) AS v FROM toolshed_migrations WHERE scope = 'notes'");
      expect(versions.rows[0].v).toBe(NOTES_PG_MIGRATIONS.length);
      await store.close();
    });

    it("snippets mark accented matches and show where a long body was cut", async () => {
      const store = await PostgresNotesStore.open({ pool: db.pool({ max: 2 }) });
      const words = Array.from({ length: 40 }, (_, i) => `word${i}`);
      words[20] = "milk";
      await store.createNote({ title: "long", body: words.join(" ") });
      await store.createNote({ title: "café", body: "Crème brûlée and coffee" });
      await store.createNote({ title: "markdown", body: "**milk** is already bold." });
      expect(await store.searchNotes("creme", { limit: 5 })).toEqual([
        { title: "café", snippet: "**Crème** brûlée and coffee", updated_at: expect.any(String) },
      ]);
      const [long] = await store.searchNotes("long milk", { limit: 5 });
      expect(long?.snippet).toMatch(/^….* \*\*milk\*\* .*…$/);
      expect(long?.snippet.split(" ").length).toBeLessThanOrEqual(16);
      // Punctuation around the snippet is kept; "**" already in a body is not taken for a match.
      const [markdown] = await store.searchNotes("markdown", { limit: 5 });
      expect(markdown?.snippet).toBe("**milk** is already bold.");
      await store.close();
    });

    it("past 4,000 notes, a word on a full page of the newest is answered newest first; rarer ones stay ranked", async () => {
      const store = await PostgresNotesStore.open({ pool: db.pool({ max: 2 }) });
      // 4,100 notes straight into the table (the store would take seconds): ids grow with time.
      // Every one says "weekly"; the oldest 20 also say "budget", in the title for the last 5 of them.
      await db.pool().query(
        `INSERT INTO notes (title, body, created_at, updated_at)
         SELECT CASE WHEN i BETWEEN 16 AND 20 THEN 'budget ' || i ELSE 'note ' || i END,
                'weekly sync' || CASE WHEN i <= 20 THEN ' about the budget' ELSE '' END,
                now(), now()
         FROM generate_series(1, 4100) AS i`,
      );
      const weekly = await store.searchNotes("weekly", { limit: 5 });
      expect(weekly.map((h) => h.title)).toEqual(["note 4100", "note 4099", "note 4098", "note 4097", "note 4096"]);
      expect(weekly[0]?.snippet).toBe("**weekly** sync");
      // Not on a full page of the newest 4,000: ranked, title matches first, ties by title.
      const budget = await store.searchNotes("budget", { limit: 7 });
      expect(budget.map((h) => h.title)).toEqual([
        "budget 16",
        "budget 17",
        "budget 18",
        "budget 19",
        "budget 20",
        "note 1",
        "note 10",
      ]);
      expect(budget[5]?.snippet).toBe("weekly sync about the **budget**");
      // Whole words first, then word starts; a word PostgreSQL's statistics count in more than
      // 2,000 notes is not expanded to its longer forms ("weekly" does not find "weeklyish").
      await store.createNote({ title: "odd one", body: "a weeklyish budgeting call" });
      await db.pool().query("ANALYZE notes");
      const mixed = await store.searchNotes("weekly budg", { limit: 30 });
      expect(mixed.map((h) => h.title)).toEqual(
        budget
          .slice(0, 5)
          .map((h) => h.title)
          .concat(Array.from({ length: 15 }, (_, i) => `note ${i + 1}`).sort()),
      );
      expect((await store.searchNotes("weeklyi budg", { limit: 5 })).map((h) => h.title)).toEqual(["odd one"]);
      await store.close();
    });
  });
});
