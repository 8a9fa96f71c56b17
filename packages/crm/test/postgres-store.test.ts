import { createTestSchema, pgReachable, TEST_DATABASE_URL, type TestSchema } from "@toolshed/storage/postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CRM_PG_MIGRATIONS, PostgresCrmStore } from "../src/postgres/index.js";
import { describeCrmStoreContract } from "./store-contract.js";

const reachable = await pgReachable();
if (!reachable) process.stderr.write(`PostgreSQL store tests SKIPPED: ${TEST_DATABASE_URL} is not reachable\n`);

describe.skipIf(!reachable)("PostgresCrmStore", () => {
  // The factory runs before every contract test: each gets a fresh, empty schema of its own,
  // dropped again by its cleanup, so tests never see each other's rows.
  describeCrmStoreContract("PostgreSQL, a fresh schema per test", async () => {
    const db = await createTestSchema();
    const store = await PostgresCrmStore.open({ pool: db.pool() });
    return {
      store,
      cleanup: async () => {
        await store.close();
        await db.drop();
      },
    };
  });

  describe("opening and migrations", () => {
    let db: TestSchema;
    beforeAll(async () => {
      db = await createTestSchema();
    });
    afterAll(() => db.drop());

    it("instances opening at once migrate once, and share ids, names and keys", async () => {
      const [a, b] = await Promise.all([
        PostgresCrmStore.open(db.url, { schema: db.schema }),
        PostgresCrmStore.open({ pool: db.pool() }),
      ]);
      const versions = await db
        .pool()
        .query("SELECT version FROM toolshed_migrations WHERE scope = 'crm' ORDER BY version");
      expect(versions.rows).toEqual(CRM_PG_MIGRATIONS.map((m) => ({ version: m.version })));
      const created = await a.createAccount({ name: "Shared Co", tier: "growth", arr: 10 });
      expect(await b.getAccount(created.id)).toEqual(created);
      await expect(b.createAccount({ name: "SHARED  co", tier: "startup", arr: 1 })).rejects.toThrow(
        `An account named 'SHARED co' already exists: ${created.id} (Shared Co)`,
      );
      await a.close();
      await a.close();
      // b was given a pool: closing it leaves that pool usable.
      await b.close();
      expect((await db.pool().query("SELECT count(*)::int AS n FROM crm_accounts")).rows[0].n).toBe(1);
    });

    it("a database migrated by a newer release is refused with a message that says what to do", async () => {
      await db.pool().query("INSERT INTO toolshed_migrations (scope, version, name) VALUES ('crm', 99, 'future')");
      await expect(PostgresCrmStore.open({ pool: db.pool() })).rejects.toThrow(
        `has crm schema version 99, newer than this release knows (${CRM_PG_MIGRATIONS.length})`,
      );
      await db.pool().query("DELETE FROM toolshed_migrations WHERE scope = 'crm' AND version = 99");
    });

    it("text with NUL characters finds nothing instead of failing, and is refused on create", async () => {
      const store = await PostgresCrmStore.open({ pool: db.pool() });
      expect(await store.getAccount("acc\u0000x")).toBeUndefined();
      expect(await store.completeAccountIds("zz\u0000", 5)).toEqual([]);
      expect((await store.searchAccounts({ text: "zz\u0000top", minArr: 0, limit: 5 })).hits).toEqual([]);
      await expect(store.createAccount({ name: "Bad\u0000Name", tier: "growth", arr: 1 })).rejects.toThrow(
        "name must not contain NUL characters",
      );
      await store.close();
    });
  });

  it("past 4,000 accounts, a word with more than a page among the newest is answered newest first, page after page; rarer ones stay ranked", async () => {
    const db = await createTestSchema();
    const store = await PostgresCrmStore.open({ pool: db.pool({ max: 2 }) });
    try {
      // 4,100 accounts straight into the table (the store would take seconds), in creation order;
      // every one's notes say "renewal"; the oldest 20 also say "pilot", in the name for 5 of them.
      await db.pool().query(
        `INSERT INTO crm_accounts (id, name, name_key, tier, arr, notes)
         SELECT 'acc_' || lpad(i::text, 5, '0'), n, lower(n), CASE WHEN i % 2 = 0 THEN 'growth' ELSE 'startup' END, i,
                'renewal call' || CASE WHEN i <= 20 THEN ' after the pilot' ELSE '' END
         FROM generate_series(1, 4100) AS i,
              LATERAL (SELECT CASE WHEN i BETWEEN 16 AND 20 THEN 'Pilot ' || i ELSE 'Account ' || i END AS n) name`,
      );
      const first = await store.searchAccounts({ text: "renewal", tier: "growth", minArr: 0, limit: 2 });
      expect(first.hits.map((h) => h.account.id)).toEqual(["acc_04100", "acc_04098"]);
      expect(first.hits[0]?.snippet).toBe("[renewal] call");
      const second = await store.searchAccounts({
        text: "renewal",
        tier: "growth",
        minArr: 0,
        limit: 2,
        cursor: first.nextCursor ?? "",
      });
      expect(second.hits.map((h) => h.account.id)).toEqual(["acc_04096", "acc_04094"]);
      // Later pages go on past the newest 4,000 accounts, down to the oldest: a cursor at seq 5.
      const position = JSON.parse(Buffer.from(first.nextCursor ?? "", "base64url").toString());
      const atFive = Buffer.from(JSON.stringify({ ...position, i: "5" })).toString("base64url");
      const oldest = await store.searchAccounts({
        text: "renewal",
        tier: "growth",
        minArr: 0,
        limit: 2,
        cursor: atFive,
      });
      expect(oldest).toMatchObject({
        hits: [{ account: { id: "acc_00004" } }, { account: { id: "acc_00002" } }],
        nextCursor: null,
      });
      // Only 3 matches (arr at most 3), none among the newest: ranked, ties by id.
      const few = await store.searchAccounts({ text: "renewal", minArr: 0, maxArr: 3, limit: 5 });
      expect(few.hits.map((h) => h.account.id)).toEqual(["acc_00001", "acc_00002", "acc_00003"]);
      // Not more than a page among the newest 4,000: ranked, name matches first, ties by id.
      const pilot = await store.searchAccounts({ text: "pilot", minArr: 0, limit: 6 });
      expect(pilot.hits.map((h) => h.account.id)).toEqual([
        "acc_00016",
        "acc_00017",
        "acc_00018",
        "acc_00019",
        "acc_00020",
        "acc_00001",
      ]);
      // A newest-first cursor whose position was edited is refused, not run.
      const edited = Buffer.from(JSON.stringify({ ...position, i: "x1" })).toString("base64url");
      await expect(
        store.searchAccounts({ text: "renewal", tier: "growth", minArr: 0, limit: 2, cursor: edited }),
      ).rejects.toThrow("cursor is not valid; pass next_cursor from the previous page unchanged, or omit it");
    } finally {
      await store.close();
      await db.drop();
    }
  });
});
