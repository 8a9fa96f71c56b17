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
});
