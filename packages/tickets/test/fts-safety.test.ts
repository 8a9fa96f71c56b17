import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, errorMeta, type Harness, rowCounts, startHarness, text } from "./helpers.js";
import { NASTY_QUERIES } from "./store-contract.js";

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
  await h.store.createTicket({
    title: "Login fails after password reset",
    body: "Rejected (again).",
    priority: "high",
  });
  await h.store.createTicket({
    title: "Invoice NEAR the total",
    body: 'Quote " and star * and minus -x',
    priority: "low",
  });
  await h.store.addComment("T-1001", "Looking into it.");
});
afterAll(async () => {
  await h.close();
});

describe("any user text is a safe query", () => {
  it.each(NASTY_QUERIES.map((q) => [q.length > 40 ? `${q.slice(0, 40)}… (${q.length} chars)` : q, q]))(
    "search_tickets %j: never an internal error, never a write",
    async (_label, query) => {
      const before = rowCounts(h.raw);
      for (const status of ["open", "closed", "any"]) {
        const result = await call(h.client, "search_tickets", { query, status });
        expect(errorMeta(result)?.kind, text(result)).not.toBe("internal");
        // The store takes any length (its own contract tests it); the tool publishes a bound.
        if (query.length > 200) {
          expect(errorMeta(result)).toMatchObject({ kind: "validation", code: "invalid_arguments" });
          expect(text(result)).toMatch(/query: must be at most 200 characters/);
          continue;
        }
        if (query.includes("\u0000")) {
          // No store keeps a NUL (PostgreSQL refuses it): one hint for every store (C6).
          expect(errorMeta(result)).toMatchObject({ kind: "validation", code: "invalid_arguments" });
          expect(text(result)).toMatch(/query: must not contain the NUL character/);
          continue;
        }
        // Text without a letter or digit cannot match: a hint, not an empty list (C6).
        if (!/[\p{L}\p{N}]/u.test(query)) {
          expect(errorMeta(result)).toMatchObject({ kind: "validation", code: "invalid_arguments" });
          expect(text(result)).toMatch(/has no words to search for/);
          continue;
        }
        // Every other string is an answer: a list, maybe empty.
        expect(result.isError, text(result)).toBeFalsy();
        expect(Array.isArray((result.structuredContent as { result: unknown }).result)).toBe(true);
      }
      expect(rowCounts(h.raw)).toEqual(before);
    },
  );

  it("finds the words inside syntax-looking text", async () => {
    const quoted = await call(h.client, "search_tickets", { query: '"password' });
    expect((quoted.structuredContent as { result: Array<{ id: string }> }).result.map((t) => t.id)).toEqual(["T-1001"]);
    const near = await call(h.client, "search_tickets", { query: "NEAR total" });
    expect((near.structuredContent as { result: Array<{ id: string }> }).result.map((t) => t.id)).toEqual(["T-1002"]);
    const paren = await call(h.client, "search_tickets", { query: "(again" });
    expect((paren.structuredContent as { result: Array<{ id: string }> }).result.map((t) => t.id)).toEqual(["T-1001"]);
  });

  it("creates tickets whose titles are FTS syntax, and finds similar ones safely", async () => {
    for (const title of ['"unbalanced', "NEAR(password, 2)", "* OR -", "🔥🔥", "login AND password NOT"]) {
      const result = await call(h.client, "create_ticket", { title, body: "(" });
      expect(result.isError, text(result)).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ title, status: "open" });
    }
    const last = await call(h.client, "create_ticket", { title: "Password NEAR login", body: "x" });
    expect((last.structuredContent as { similar: Array<{ id: string }> }).similar.map((s) => s.id)).toContain("T-1001");
  });
});
