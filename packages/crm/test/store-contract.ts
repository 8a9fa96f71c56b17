// The behaviour every CrmStore must have, written against the interface only, so that any
// implementation (SQLite today, PostgreSQL later) runs the same suite.

import { ConflictError, InvalidArgumentsError } from "@toolshed/errors";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Account, CrmStore, NewAccount } from "../src/index.js";

export type MakeStore = () => Promise<{ store: CrmStore; cleanup: () => Promise<void> }>;

const ACME: NewAccount = {
  name: "Acme Corp",
  tier: "enterprise",
  arr: 1_250_000,
  domain: "acme.com",
  notes: "Renewal in Q3",
};

async function searchAll(store: CrmStore, text: string, limit: number) {
  const ids: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await store.searchAccounts({ text, minArr: 0, limit, cursor });
    ids.push(...page.hits.map((h) => h.account.id));
    cursor = page.nextCursor ?? undefined;
    pages++;
  } while (cursor !== undefined && pages < 50);
  return { ids, pages };
}
export function describeCrmStoreContract(label: string, makeStore: MakeStore): void {
  describe(`CrmStore contract: ${label}`, () => {
    let store: CrmStore;
    let cleanup: () => Promise<void>;

    beforeEach(async () => {
      ({ store, cleanup } = await makeStore());
    });

    afterEach(async () => {
      await cleanup();
    });

    describe("create and get", () => {
      it("creates an account with a new id, normalized name and timestamps, and gets it back", async () => {
        const created = await store.createAccount({ ...ACME, name: "  Acme   Corp " });
        expect(created).toEqual({
          id: created.id,
          name: "Acme Corp",
          tier: "enterprise",
          arr: 1_250_000,
          domain: "acme.com",
          notes: "Renewal in Q3",
          archived: false,
          created_at: created.created_at,
          updated_at: created.created_at,
        });
        expect(created.id).toMatch(/^acc_[0-9a-f]{12}$/);
        expect(Number.isNaN(Date.parse(created.created_at))).toBe(false);
        expect(await store.getAccount(created.id)).toEqual(created);
      });

      it("leaves domain and notes null when absent, and keeps a fixed id when given", async () => {
        const created = await store.createAccount({ id: "acc_fixed", name: "Globex", tier: "growth", arr: 0 });
        expect(created).toMatchObject({ id: "acc_fixed", domain: null, notes: null, arr: 0 });
        expect((await store.getAccount("acc_fixed"))?.name).toBe("Globex");
      });

      it("answers undefined for an unknown id", async () => {
        expect(await store.getAccount("acc_missing")).toBeUndefined();
      });

      it("rejects a name taken ignoring case with a conflict naming the existing account", async () => {
        const first = await store.createAccount(ACME);
        const attempt = store.createAccount({ name: "ACME  corp", tier: "startup", arr: 1 });
        await expect(attempt).rejects.toBeInstanceOf(ConflictError);
        await expect(attempt).rejects.toThrow(
          `An account named 'ACME corp' already exists: ${first.id} (Acme Corp). Names are unique ignoring case; use that account or choose another name`,
        );
        expect((await store.listAccounts({ limit: 10 })).accounts).toHaveLength(1);
      });

      it("rejects a fixed id that is taken", async () => {
        await store.createAccount({ ...ACME, id: "acc_1" });
        await expect(store.createAccount({ id: "acc_1", name: "Other", tier: "growth", arr: 5 })).rejects.toThrow(
          new ConflictError("Account id 'acc_1' is already taken by Acme Corp; leave the id out to get a new one"),
        );
      });
    });

    describe("idempotency keys", () => {
      it("the same key and account return the first result and create nothing more", async () => {
        const first = await store.createAccount(ACME, { idempotencyKey: "k-1" });
        const again = await store.createAccount(ACME, { idempotencyKey: "k-1" });
        expect(again).toEqual(first);
        expect((await store.listAccounts({ limit: 10 })).accounts).toEqual([first]);
      });

      it("racing creates with one key make one account and all get the same answer", async () => {
        const answers = await Promise.all(
          Array.from({ length: 20 }, () => store.createAccount(ACME, { idempotencyKey: "race" })),
        );
        expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
        expect((await store.listAccounts({ limit: 10 })).accounts).toHaveLength(1);
      });

      it("the same key with another account is a conflict and writes nothing", async () => {
        await store.createAccount(ACME, { idempotencyKey: "k-2" });
        await expect(
          store.createAccount({ name: "Globex", tier: "growth", arr: 10 }, { idempotencyKey: "k-2" }),
        ).rejects.toThrow(
          new ConflictError(
            "idempotency_key 'k-2' was already used with different arguments; use a new key for a new request, or repeat the original arguments",
          ),
        );
        expect((await store.listAccounts({ limit: 10 })).accounts.map((a) => a.name)).toEqual(["Acme Corp"]);
      });

      it("a create that failed does not use up its key", async () => {
        await store.createAccount(ACME);
        await expect(store.createAccount(ACME, { idempotencyKey: "k-3" })).rejects.toBeInstanceOf(ConflictError);
        const other = await store.createAccount({ ...ACME, name: "Acme Two" }, { idempotencyKey: "k-3" });
        expect(other.name).toBe("Acme Two");
      });
    });

    describe("search", () => {
      let accounts: Record<string, Account>;
      beforeEach(async () => {
        accounts = {};
        for (const a of [
          { name: "Acme Corp", tier: "enterprise", arr: 1_250_000, domain: "acme.com", notes: "Renewal due" },
          { name: "Acme Logistics", tier: "growth", arr: 300_000, domain: "acmelog.io", notes: null },
          { name: "Globex", tier: "growth", arr: 240_000, domain: "globex.io", notes: "Spun out of Acme in 2019" },
          { name: "Société Générale Café", tier: "startup", arr: 9_000, domain: "cafe.fr", notes: "Paris" },
        ] as NewAccount[]) {
          accounts[a.name] = await store.createAccount(a);
        }
      });

      it("ranks name matches above notes matches and marks matched words in the snippet", async () => {
        const page = await store.searchAccounts({ text: "acme", minArr: 0, limit: 10 });
        const names = page.hits.map((h) => h.account.name);
        expect(names).toHaveLength(3);
        expect(names.slice(0, 2).sort()).toEqual(["Acme Corp", "Acme Logistics"]);
        expect(names[2]).toBe("Globex");
        expect(page.hits[2]?.snippet).toContain("[Acme]");
        expect(page.hits[0]?.account).toEqual(accounts[names[0] as string]);
        expect(page.nextCursor).toBeNull();
      });

      it("whole words come before word starts, also page after page", async () => {
        // "acme" whole: Acme Corp and Acme Logistics (name), Globex (notes); only as a word start: Acmeware.
        await store.createAccount({ name: "Acmeware", tier: "startup", arr: 1 });
        await store.createAccount({ name: "Acmetric", tier: "startup", arr: 2 });
        const names: string[] = [];
        let cursor: string | undefined;
        for (let page = 0; page < 10; page++) {
          const found = await store.searchAccounts({ text: "acme", minArr: 0, limit: 1, cursor });
          names.push(...found.hits.map((h) => h.account.name));
          if (found.nextCursor === null) break;
          cursor = found.nextCursor;
        }
        expect(names.slice(0, 2).sort()).toEqual(["Acme Corp", "Acme Logistics"]);
        expect(names[2]).toBe("Globex");
        // The last page starts from a cursor inside the word starts.
        expect(names.slice(3).sort()).toEqual(["Acmetric", "Acmeware"]);
        const onePage = await store.searchAccounts({ text: "acme", minArr: 0, limit: 10 });
        expect(onePage.hits.map((h) => h.account.name)).toEqual(names);
      });

      it("matches domains, word prefixes and letters without their accents", async () => {
        expect((await store.searchAccounts({ text: "globex.io", minArr: 0, limit: 5 })).hits[0]?.account.name).toBe(
          "Globex",
        );
        expect((await store.searchAccounts({ text: "logist", minArr: 0, limit: 5 })).hits[0]?.account.name).toBe(
          "Acme Logistics",
        );
        expect(
          (await store.searchAccounts({ text: "societe cafe", minArr: 0, limit: 5 })).hits.map((h) => h.account.name),
        ).toEqual(["Société Générale Café"]);
      });

      it("filters by tier and ARR range", async () => {
        const names = async (filters: { tier?: "growth"; minArr: number; maxArr?: number }) =>
          (await store.searchAccounts({ text: "acme", limit: 10, ...filters })).hits.map((h) => h.account.name).sort();
        expect(await names({ tier: "growth", minArr: 0 })).toEqual(["Acme Logistics", "Globex"]);
        expect(await names({ minArr: 250_000 })).toEqual(["Acme Corp", "Acme Logistics"]);
        expect(await names({ minArr: 0, maxArr: 300_000 })).toEqual(["Acme Logistics", "Globex"]);
        expect(await names({ minArr: 240_000, maxArr: 240_000 })).toEqual(["Globex"]);
      });

      it("treats any text as words: syntax characters never throw, and text with no words finds nothing", async () => {
        for (const text of [
          '"acme',
          "acme*",
          "-acme",
          "acme OR globex",
          "NEAR(acme globex)",
          "name:acme",
          "((acme",
          "🚀 acme",
        ]) {
          const page = await store.searchAccounts({ text, minArr: 0, limit: 10 });
          expect(Array.isArray(page.hits)).toBe(true);
        }
        expect((await store.searchAccounts({ text: "acme OR globex", minArr: 0, limit: 10 })).hits).toEqual([]);
        for (const text of ["  ", "**", '""', "🚀🚀", "()"]) {
          expect(await store.searchAccounts({ text, minArr: 0, limit: 10 })).toEqual({ hits: [], nextCursor: null });
        }
      });

      it("pages through many matches with opaque cursors, each account once", async () => {
        for (let i = 0; i < 23; i++) {
          await store.createAccount({
            name: `Widget Works ${i}`,
            tier: "startup",
            arr: i * 100,
            notes: i % 2 ? "widget" : null,
          });
        }
        const { ids, pages } = await searchAll(store, "widget", 5);
        expect(pages).toBe(5);
        expect(ids).toHaveLength(23);
        expect(new Set(ids).size).toBe(23);
        const one = await store.searchAccounts({ text: "widget", minArr: 0, limit: 100 });
        expect(one.hits.map((h) => h.account.id)).toEqual(ids);
        expect(one.nextCursor).toBeNull();
      });

      it("rejects a cursor that is not one, or that belongs to another search", async () => {
        const page = await store.searchAccounts({ text: "acme", minArr: 0, limit: 1 });
        expect(page.nextCursor).toEqual(expect.any(String));
        const cursor = page.nextCursor as string;
        await expect(
          store.searchAccounts({ text: "acme", minArr: 0, limit: 1, cursor: "nonsense" }),
        ).rejects.toBeInstanceOf(InvalidArgumentsError);
        const other = store.searchAccounts({ text: "acme", tier: "growth", minArr: 0, limit: 1, cursor });
        await expect(other).rejects.toBeInstanceOf(InvalidArgumentsError);
        await expect(other).rejects.toThrow(
          "cursor belongs to another search; pass next_cursor only with the same query and filters, or omit it",
        );
        const next = await store.searchAccounts({ text: "acme", minArr: 0, limit: 1, cursor });
        expect(next.hits).toHaveLength(1);
        expect(next.hits[0]?.account.id).not.toBe(page.hits[0]?.account.id);
      });
    });

    describe("list", () => {
      it("lists by id with keyset cursors, and rejects a bad cursor", async () => {
        for (let i = 0; i < 7; i++)
          await store.createAccount({ id: `acc_${i}`, name: `Company ${i}`, tier: "startup", arr: i });
        const first = await store.listAccounts({ limit: 3 });
        expect(first.accounts.map((a) => a.id)).toEqual(["acc_0", "acc_1", "acc_2"]);
        const second = await store.listAccounts({ limit: 3, cursor: first.nextCursor as string });
        expect(second.accounts.map((a) => a.id)).toEqual(["acc_3", "acc_4", "acc_5"]);
        const last = await store.listAccounts({ limit: 3, cursor: second.nextCursor as string });
        expect(last).toEqual({ accounts: [expect.objectContaining({ id: "acc_6" })], nextCursor: null });
        await expect(store.listAccounts({ limit: 3, cursor: "x" })).rejects.toBeInstanceOf(InvalidArgumentsError);
      });

      it("caps the page size at 100", async () => {
        for (let i = 0; i < 105; i++) await store.createAccount({ name: `Bulk ${i}`, tier: "startup", arr: i });
        const page = await store.listAccounts({ limit: 1000 });
        expect(page.accounts).toHaveLength(100);
        expect(page.nextCursor).not.toBeNull();
      });
    });

    describe("tier updates and archiving", () => {
      it("updates the tier, reports the previous one, and moves updated_at", async () => {
        const created = await store.createAccount(ACME);
        await new Promise((r) => setTimeout(r, 5));
        const update = await store.updateTier(created.id, "growth");
        expect(update).toEqual({
          status: "updated",
          previousTier: "enterprise",
          account: { ...created, tier: "growth", updated_at: expect.any(String) },
        });
        if (update.status !== "updated") throw new Error("unreachable");
        expect(update.account.updated_at > created.updated_at).toBe(true);
        expect((await store.getAccount(created.id))?.tier).toBe("growth");
      });

      it("setting the same tier succeeds without a change", async () => {
        const created = await store.createAccount(ACME);
        expect(await store.updateTier(created.id, "enterprise")).toEqual({
          status: "updated",
          previousTier: "enterprise",
          account: created,
        });
      });

      it("reports unknown and archived accounts without changing them", async () => {
        expect(await store.updateTier("acc_none", "growth")).toEqual({ status: "not_found" });
        const created = await store.createAccount(ACME);
        const archived = await store.setArchived(created.id, true);
        expect(archived?.archived).toBe(true);
        expect(await store.updateTier(created.id, "startup")).toEqual({ status: "archived", account: archived });
        expect((await store.getAccount(created.id))?.tier).toBe("enterprise");
        expect((await store.setArchived(created.id, false))?.archived).toBe(false);
        expect(await store.setArchived("acc_none", true)).toBeUndefined();
      });
    });

    describe("candidates and completion", () => {
      beforeEach(async () => {
        for (let i = 1; i <= 300; i++) {
          const n = String(i).padStart(4, "0");
          await store.createAccount({ id: `acc_${n}`, name: `Company ${n}`, tier: "startup", arr: i });
        }
        await store.createAccount({ id: "acc_zeta", name: "Globex Shipping", tier: "growth", arr: 5 });
      });

      it("finds near ids, near names and word matches in a bounded set", async () => {
        const near = await store.findCandidates("acc_015O", 200);
        expect(near.length).toBeLessThanOrEqual(200);
        expect(near.map((c) => c.id)).toContain("acc_0150");
        const typo = await store.findCandidates("acc_0150x", 200);
        expect(typo.map((c) => c.id)).toContain("acc_0150");
        const byName = await store.findCandidates("Globx Shiping", 200);
        expect(byName).toContainEqual({ id: "acc_zeta", name: "Globex Shipping" });
        const byWord = await store.findCandidates("shipping", 200);
        expect(byWord).toContainEqual({ id: "acc_zeta", name: "Globex Shipping" });
        expect(await store.findCandidates("acc_0001", 10)).toHaveLength(10);
      });

      it("completes ids by id prefix, then by name prefix, up to the limit", async () => {
        expect(await store.completeAccountIds("acc_029", 100)).toEqual([
          "acc_0290",
          "acc_0291",
          "acc_0292",
          "acc_0293",
          "acc_0294",
          "acc_0295",
          "acc_0296",
          "acc_0297",
          "acc_0298",
          "acc_0299",
        ]);
        expect(await store.completeAccountIds("GLOB", 100)).toEqual(["acc_zeta"]);
        expect(await store.completeAccountIds("acc_", 5)).toEqual([
          "acc_0001",
          "acc_0002",
          "acc_0003",
          "acc_0004",
          "acc_0005",
        ]);
        expect(await store.completeAccountIds("nothing", 5)).toEqual([]);
      });
    });

    describe("cancellation", () => {
      it("an aborted call fails with the signal's reason and writes nothing", async () => {
        const controller = new AbortController();
        const reason = new Error("caller gave up");
        controller.abort(reason);
        await expect(store.createAccount(ACME, { signal: controller.signal })).rejects.toBe(reason);
        await expect(store.getAccount("acc_1", { signal: controller.signal })).rejects.toBe(reason);
        expect((await store.listAccounts({ limit: 10 })).accounts).toEqual([]);
      });
    });
  });
}
