import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type CrmFixture, databaseState, errorMeta, startCrm, text } from "./helpers.js";

let crm: CrmFixture;

beforeEach(async () => {
  crm = await startCrm();
});

afterEach(async () => {
  await crm.close();
});

describe("crm_search_accounts", () => {
  it("returns ranked accounts with snippets as structured content and the same JSON as text (C1)", async () => {
    const result = await crm.call("crm_search_accounts", { query: "logistics" });
    expect(result.isError).toBeFalsy();
    const expected = {
      count: 3,
      accounts: [
        {
          id: "acc_1007",
          name: "Stark Logistics",
          tier: "growth",
          arr: 310_000,
          domain: "starklogistics.com",
          archived: false,
          snippet: "Stark [Logistics]",
        },
        {
          id: "acc_1023",
          name: "Los Pollos Logistics",
          tier: "growth",
          arr: 190_000,
          domain: "lospollos.com",
          archived: false,
          snippet: "Los Pollos [Logistics]",
        },
        {
          id: "acc_1002",
          name: "Globex",
          tier: "growth",
          arr: 240_000,
          domain: "globex.io",
          archived: false,
          snippet: "Expanding the [logistics] team; champion is the VP of Operations.",
        },
      ],
      next_cursor: null,
    };
    expect(result.structuredContent).toEqual(expected);
    expect(result.content).toEqual([{ type: "text", text: JSON.stringify(expected, null, 2) }]);
  });

  it("filters by tier and ARR range", async () => {
    const growthUnder200k = await crm.call("crm_search_accounts", {
      query: "logistics",
      tier: "growth",
      max_arr: 200_000,
    });
    expect(
      (growthUnder200k.structuredContent as { accounts: Array<{ id: string }> }).accounts.map((a) => a.id),
    ).toEqual(["acc_1023"]);
    const atLeast250k = await crm.call("crm_search_accounts", { query: "logistics", min_arr: 250_000 });
    expect((atLeast250k.structuredContent as { accounts: Array<{ id: string }> }).accounts.map((a) => a.id)).toEqual([
      "acc_1007",
    ]);
    const enterprise = await crm.call("crm_search_accounts", { query: "logistics", tier: "enterprise" });
    expect(enterprise.structuredContent).toEqual({ count: 0, accounts: [], next_cursor: null });
  });

  it("includes archived accounts, marked", async () => {
    const result = await crm.call("crm_search_accounts", { query: "oscorp" });
    expect(result.structuredContent).toMatchObject({ count: 1, accounts: [{ id: "acc_1034", archived: true }] });
  });

  it("pages with opaque cursors: every match once, in the same order as one big page", async () => {
    const all = await crm.call("crm_search_accounts", { query: "com", limit: 100 });
    const allIds = (all.structuredContent as { accounts: Array<{ id: string }> }).accounts.map((a) => a.id);
    expect(allIds.length).toBeGreaterThan(20);
    const paged: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const result = await crm.call("crm_search_accounts", { query: "com", limit: 7, ...(cursor ? { cursor } : {}) });
      const page = result.structuredContent as {
        count: number;
        accounts: Array<{ id: string }>;
        next_cursor: string | null;
      };
      expect(page.count).toBe(page.accounts.length);
      paged.push(...page.accounts.map((a) => a.id));
      cursor = page.next_cursor ?? undefined;
      pages++;
    } while (cursor);
    expect(pages).toBe(Math.ceil(allIds.length / 7));
    expect(paged).toEqual(allIds);
  });

  it("a forged cursor (negative or fractional positions, a NUL) is a validation error, never an internal one", async () => {
    const first = await crm.call("crm_search_accounts", { query: "com", limit: 2 });
    const cursor = (first.structuredContent as { next_cursor: string }).next_cursor;
    const real = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as Record<string, unknown>;
    const forge = (changes: Record<string, unknown>) =>
      Buffer.from(JSON.stringify({ ...real, ...changes }), "utf8").toString("base64url");
    for (const changes of [{ p: -1 }, { p: 0.5 }, { p: 1.5 }, { p: 1e300 }, { q: -3 }, { q: 2.5 }, { f: "a\u0000b" }]) {
      const forged = await crm.call("crm_search_accounts", { query: "com", limit: 2, cursor: forge(changes) });
      expect(errorMeta(forged), JSON.stringify(changes)).toMatchObject({
        kind: "validation",
        code: "invalid_arguments",
      });
    }
  });

  it("a cursor that was edited or belongs to another search is a validation error that says what works", async () => {
    const first = await crm.call("crm_search_accounts", { query: "com", limit: 2 });
    const cursor = (first.structuredContent as { next_cursor: string }).next_cursor;
    const edited = await crm.call("crm_search_accounts", { query: "com", limit: 2, cursor: cursor.slice(0, -6) });
    expect(edited.isError).toBe(true);
    expect(text(edited)).toBe(
      "Invalid arguments for tool crm_search_accounts:\ncursor is not valid; pass next_cursor from the previous page unchanged, or omit it",
    );
    expect(errorMeta(edited)).toEqual({
      kind: "validation",
      code: "invalid_arguments",
      retryable: false,
      issues: [{ path: "cursor", message: "must be next_cursor from the previous page of this list" }],
    });
    const other = await crm.call("crm_search_accounts", { query: "com", tier: "growth", limit: 2, cursor });
    expect(text(other)).toBe(
      "Invalid arguments for tool crm_search_accounts:\ncursor belongs to another search; pass next_cursor only with the same query and filters, or omit it",
    );
    expect(errorMeta(other)?.code).toBe("invalid_arguments");
  });

  it("C6: max_arr below min_arr names max_arr", async () => {
    const result = await crm.call("crm_search_accounts", { query: "acme", min_arr: 100, max_arr: 5 });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      "Invalid arguments for tool crm_search_accounts:\nmax_arr: must be greater than or equal to min_arr",
    );
    expect(errorMeta(result)).toEqual({
      kind: "validation",
      code: "invalid_arguments",
      retryable: false,
      issues: [{ path: "max_arr", message: "must be greater than or equal to min_arr" }],
    });
  });

  it("C6: bounds and enums are hints", async () => {
    const result = await crm.call("crm_search_accounts", { query: "a", tier: "huge", min_arr: -1, limit: 101 });
    expect(text(result)).toBe(
      [
        "Invalid arguments for tool crm_search_accounts:",
        "query: must be at least 2 characters (got 1)",
        'tier: must be one of "startup", "growth", "enterprise" (got "huge")',
        "min_arr: must be at least 0 (got -1)",
        "limit: must be at most 100 (got 101)",
      ].join("\n"),
    );
  });

  it("text without any word finds nothing, without an error", async () => {
    for (const query of ["!!", "   ", "🚀🚀", '""']) {
      const result = await crm.call("crm_search_accounts", { query });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ count: 0, accounts: [], next_cursor: null });
    }
  });

  it("no user text is query syntax, an internal error, or a change to data", async () => {
    const nasty = [
      '"',
      '"acme',
      'acme"',
      "'",
      "acme'; DROP TABLE crm_accounts; --",
      '"); DELETE FROM crm_accounts; --',
      "*",
      "acme*",
      "*acme",
      "-acme",
      "acme -corp",
      "acme AND",
      "OR acme",
      "acme OR globex",
      "NOT acme",
      "NEAR(acme globex)",
      "NEAR(acme",
      "acme NEAR/2 corp",
      "((acme",
      "acme))",
      "()",
      "name:acme",
      "{name notes}: acme",
      "^acme",
      "acme + corp",
      "%_%",
      "\\",
      "\u0000acme",
      "🚀 acme 🚀",
      "👩‍👩‍👧‍👦",
      "ａｃｍｅ",
      "ACME CORP",
      "x".repeat(200),
      "a b c d e f g h i j k l m n o p q r s t u v w x y z",
      "  acme  ",
      "rebuild",
      "delete",
      "crm_accounts_fts",
    ];
    const before = databaseState(crm.dbPath);
    for (const query of nasty) {
      for (const extra of [{}, { tier: "growth", min_arr: 1, max_arr: 10_000_000, limit: 3 }]) {
        const result = await crm.call("crm_search_accounts", { query, ...extra });
        const meta = errorMeta(result);
        if (result.isError) {
          expect(meta?.kind, `query ${JSON.stringify(query)}: ${text(result)}`).not.toBe("internal");
          expect(meta?.code).toBe("invalid_arguments");
        } else {
          expect(result.structuredContent).toMatchObject({ count: expect.any(Number), accounts: expect.any(Array) });
        }
      }
    }
    const fullWidth = await crm.call("crm_search_accounts", { query: "ａｃｍｅ" });
    expect((fullWidth.structuredContent as { accounts: Array<{ id: string }> }).accounts[0]?.id).toBe("acc_1001");
    expect(databaseState(crm.dbPath)).toEqual(before);
    expect(crm.logs.filter((line) => line.level === 50)).toEqual([]);
  });
});
