import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEMO_ACCOUNTS, SqliteCrmStore, seedDemo } from "../src/index.js";
import { databaseState, tempDir } from "./helpers.js";

let tmp: ReturnType<typeof tempDir>;
let path: string;
let store: SqliteCrmStore;

beforeEach(() => {
  tmp = tempDir();
  path = join(tmp.dir, "crm.db");
  store = SqliteCrmStore.open(path);
});

afterEach(async () => {
  await store.close();
  tmp.remove();
});

describe("seedDemo", () => {
  it("adds 36 realistic accounts, 3 of them archived", async () => {
    expect(await seedDemo(store)).toEqual({ created: 36, skipped: 0 });
    const state = databaseState(path);
    expect(state.accounts).toBe(36);
    expect(state.fts).toBe(36);
    const { accounts } = await store.listAccounts({ limit: 100 });
    expect(accounts.filter((a) => a.archived).map((a) => a.name)).toEqual(["Oscorp", "Virtucon", "Kramerica"]);
    expect(new Set(accounts.map((a) => a.tier))).toEqual(new Set(["startup", "growth", "enterprise"]));
    expect(accounts.every((a) => a.domain && a.notes && a.arr > 0)).toBe(true);
    expect(accounts.map((a) => a.id)).toEqual(DEMO_ACCOUNTS.map((a) => a.id));
  });

  it("is idempotent: a second call adds nothing and changes nothing", async () => {
    await seedDemo(store);
    const before = databaseState(path);
    expect(await seedDemo(store)).toEqual({ created: 0, skipped: 36 });
    expect(databaseState(path)).toEqual(before);
  });

  it("leaves an existing account with a demo name alone", async () => {
    const mine = await store.createAccount({ name: "acme corp", tier: "startup", arr: 1 });
    expect(await seedDemo(store)).toEqual({ created: 35, skipped: 1 });
    expect(await store.getAccount("acc_1001")).toBeUndefined();
    expect(await store.getAccount(mine.id)).toEqual(mine);
  });

  it("two seeders at once still make each account once", async () => {
    const other = SqliteCrmStore.open(path);
    const results = await Promise.all([seedDemo(store), seedDemo(other)]);
    await other.close();
    expect(results.reduce((sum, r) => sum + r.created, 0)).toBe(36);
    expect(databaseState(path).accounts).toBe(36);
  });
});
