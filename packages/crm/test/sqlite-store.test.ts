import { join } from "node:path";
import { openSqlite, runMigrations } from "@toolshed/storage";
import { forEachSqliteDriver } from "@toolshed/test-support";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CRM_MIGRATION_SCOPE, CRM_SQLITE_MIGRATIONS, SqliteCrmStore } from "../src/index.js";
import { tempDir } from "./helpers.js";
import { describeCrmStoreContract } from "./store-contract.js";

forEachSqliteDriver((driver) => {
  describeCrmStoreContract(`SQLite file in a temp dir (${driver})`, async () => {
    const tmp = tempDir();
    const store = SqliteCrmStore.open(join(tmp.dir, "nested", "crm.db"), { driver });
    return {
      store,
      cleanup: async () => {
        await store.close();
        tmp.remove();
      },
    };
  });

  describeCrmStoreContract(`SQLite :memory: (${driver})`, async () => {
    const store = SqliteCrmStore.open(":memory:", { driver });
    return { store, cleanup: () => store.close() };
  });
});

describe("SqliteCrmStore on a file", () => {
  let tmp: ReturnType<typeof tempDir>;
  let path: string;
  beforeEach(() => {
    tmp = tempDir();
    path = join(tmp.dir, "crm.db");
  });
  afterEach(() => tmp.remove());

  it("upgrades a version 1 file in place: accounts kept, new columns defaulted, search over the new index", async () => {
    const old = openSqlite(path);
    const [first] = CRM_SQLITE_MIGRATIONS;
    if (!first) throw new Error("no migrations");
    expect(runMigrations(old, CRM_MIGRATION_SCOPE, [first])).toBe(1);
    old
      .prepare(
        "INSERT INTO crm_accounts (id, name, name_key, tier, arr, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      )
      .run(
        "acc_old",
        "Legacy Freight",
        "legacy freight",
        "growth",
        50_000,
        "2024-01-01T00:00:00.000Z",
        "2024-01-01T00:00:00.000Z",
      );
    old.close();

    const store = SqliteCrmStore.open(path);
    expect(await store.getAccount("acc_old")).toEqual({
      id: "acc_old",
      name: "Legacy Freight",
      tier: "growth",
      arr: 50_000,
      domain: null,
      notes: null,
      archived: false,
      created_at: "2024-01-01T00:00:00.000Z",
      updated_at: "2024-01-01T00:00:00.000Z",
    });
    const found = await store.searchAccounts({ text: "freight", minArr: 0, limit: 5 });
    expect(found.hits.map((h) => h.account.id)).toEqual(["acc_old"]);
    const created = await store.createAccount({ name: "Newco", tier: "startup", arr: 1, notes: "ships freight" });
    expect(
      (await store.searchAccounts({ text: "freight", minArr: 0, limit: 5 })).hits.map((h) => h.account.id).sort(),
    ).toEqual([created.id, "acc_old"].sort());
    await store.close();

    const check = openSqlite(path);
    const versions = check
      .prepare("SELECT version FROM toolshed_migrations WHERE scope = 'crm' ORDER BY version")
      .pluck()
      .all();
    check.close();
    expect(versions).toEqual(CRM_SQLITE_MIGRATIONS.map((m) => m.version));
  });

  it("a file written by a newer release is refused with a message that says what to do", () => {
    const db = openSqlite(path);
    runMigrations(db, CRM_MIGRATION_SCOPE, [...CRM_SQLITE_MIGRATIONS, { version: 99, name: "future", up: "SELECT 1" }]);
    db.close();
    expect(() => SqliteCrmStore.open(path)).toThrow(
      `database ${path} has crm schema version 99, newer than this release knows (${CRM_SQLITE_MIGRATIONS.length}); upgrade Toolshed to a release that knows it, or use another database`,
    );
  });

  it("two stores on one file share idempotency keys and name uniqueness", async () => {
    const a = SqliteCrmStore.open(path);
    const b = SqliteCrmStore.open(path);
    const account = { name: "Shared Co", tier: "growth" as const, arr: 10 };
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).createAccount(account, { idempotencyKey: "shared-key" })),
    );
    expect(new Set(answers.map((x) => JSON.stringify(x))).size).toBe(1);
    expect((await a.listAccounts({ limit: 10 })).accounts).toHaveLength(1);
    await expect(b.createAccount({ ...account, name: "shared co" })).rejects.toThrow(/already exists/);
    await a.close();
    await b.close();
  });

  it("close is safe to call twice, and the file reopens with its data", async () => {
    const store = SqliteCrmStore.open(path);
    const created = await store.createAccount({ name: "Keep Me", tier: "startup", arr: 3 });
    await store.close();
    await store.close();
    const again = SqliteCrmStore.open(path);
    expect(await again.getAccount(created.id)).toEqual(created);
    await again.close();
  });
});
