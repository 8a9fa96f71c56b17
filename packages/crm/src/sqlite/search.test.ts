import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AccountSearch } from "../store.js";
import { COMMON_ROWS } from "./fts-plan.js";
import { SqliteCrmStore } from "./store.js";

let store: SqliteCrmStore;

beforeEach(() => {
  store = SqliteCrmStore.open(":memory:");
});

afterEach(async () => {
  await store.close();
});

async function allPages(search: Omit<AccountSearch, "cursor">): Promise<{ names: string[]; pages: number }> {
  const names: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await store.searchAccounts({ ...search, cursor });
    names.push(...page.hits.map((h) => h.account.name));
    cursor = page.nextCursor ?? undefined;
    pages++;
  } while (cursor !== undefined && pages < 1000);
  return { names, pages };
}

describe("SQLite account search", () => {
  it("lists accounts with the whole word before accounts where it only starts a word", async () => {
    await store.createAccount({ name: "Logisticsworks", tier: "startup", arr: 1, notes: "logistic" });
    await store.createAccount({ name: "Logistic Partners", tier: "startup", arr: 1 });
    await store.createAccount({ name: "Acme", tier: "startup", arr: 1, notes: "logistics firm" });
    const page = await store.searchAccounts({ text: "logistic", minArr: 0, limit: 10 });
    expect(page.hits.map((h) => h.account.name)).toEqual(["Logistic Partners", "Logisticsworks", "Acme"]);
    expect(page.hits[2]?.snippet).toContain("[logistics]");
    // The same order a page at a time, through both phases.
    expect(await allPages({ text: "logistic", minArr: 0, limit: 1 })).toEqual({
      names: ["Logistic Partners", "Logisticsworks", "Acme"],
      pages: 3,
    });
  });

  it("answers a word in more than COMMON_ROWS accounts newest first, and pages through every match once", async () => {
    const total = COMMON_ROWS + 30;
    for (let i = 0; i < total; i++) {
      await store.createAccount({
        name: `Widget ${String(i).padStart(5, "0")}`,
        tier: i % 2 ? "growth" : "startup",
        arr: i,
      });
    }
    const first = await store.searchAccounts({ text: "widget", minArr: 0, limit: 3 });
    expect(first.hits.map((h) => h.account.name)).toEqual(["Widget 02029", "Widget 02028", "Widget 02027"]);
    expect(first.hits[0]?.snippet).toBe("[Widget] 02029");
    const { names, pages } = await allPages({ text: "widget", minArr: 0, limit: 100 });
    expect(pages).toBe(Math.ceil(total / 100));
    expect(new Set(names).size).toBe(total);
    // Filters apply before the limit, also for common words.
    const growth = await store.searchAccounts({ text: "widget", tier: "growth", minArr: 2000, limit: 50 });
    expect(growth.hits.map((h) => h.account.arr)).toEqual([
      2029, 2027, 2025, 2023, 2021, 2019, 2017, 2015, 2013, 2011, 2009, 2007, 2005, 2003, 2001,
    ]);
    // A rare word next to the common one is still found, wherever its row is.
    await store.createAccount({ name: "Kalomi", tier: "startup", arr: 5, notes: "widget reseller" });
    await store.createAccount({ name: "Widget 99999", tier: "startup", arr: 5 });
    const both = await store.searchAccounts({ text: "widget kalomi", minArr: 0, limit: 10 });
    expect(both.hits.map((h) => h.account.name)).toEqual(["Kalomi"]);
  }, 60_000);
});
