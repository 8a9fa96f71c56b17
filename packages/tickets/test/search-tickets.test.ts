import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, errorMeta, type Harness, startHarness, text } from "./helpers.js";

let h: Harness;

beforeEach(async () => {
  h = await startHarness();
  await h.store.createTicket({
    title: "Login fails after password reset",
    body: "New password rejected.",
    priority: "high",
  });
  h.clock.advance(60);
  await h.store.createTicket({
    title: "Invoice shows USD",
    body: "The password page is fine; invoices are not.",
    priority: "normal",
  });
  h.clock.advance(60);
  await h.store.createTicket({ title: "Password field too short", body: "Max 12 characters.", priority: "low" });
  await h.store.updateTicketStatus("T-1003", { status: "closed", resolution: "Raised to 64" });
});
afterEach(async () => {
  await h.close();
});

describe("search_tickets", () => {
  it("returns open ticket summaries, best match first, wrapped as {result} (C2)", async () => {
    const result = await call(h.client, "search_tickets", { query: "password" });
    expect(result.isError).toBeFalsy();
    const expected = [
      {
        id: "T-1001",
        title: "Login fails after password reset",
        status: "open",
        priority: "high",
        updated_at: "2025-03-01T09:00:00.000Z",
        snippet: "New **password** rejected.",
      },
      {
        id: "T-1002",
        title: "Invoice shows USD",
        status: "open",
        priority: "normal",
        updated_at: "2025-03-01T09:01:00.000Z",
        snippet: "The **password** page is fine; invoices are not.",
      },
    ];
    expect(result.structuredContent).toEqual({ result: expected });
    expect(result.content).toEqual([{ type: "text", text: JSON.stringify(expected, null, 2) }]);
  });

  it("matches closed or any status, and honours the limit", async () => {
    const closed = await call(h.client, "search_tickets", { query: "password", status: "closed" });
    expect((closed.structuredContent as { result: Array<{ id: string }> }).result.map((t) => t.id)).toEqual(["T-1003"]);
    const any = await call(h.client, "search_tickets", { query: "password", status: "any", limit: 2 });
    // Both have the word in the title; T-1001 also in its body.
    expect((any.structuredContent as { result: Array<{ id: string }> }).result.map((t) => t.id)).toEqual([
      "T-1001",
      "T-1003",
    ]);
  });

  it("a query without words is an invalid_arguments error saying what works, not an empty list (issue 37)", async () => {
    for (const query of ["", "   ", "  ***  "]) {
      const result = await call(h.client, "search_tickets", { query });
      expect(result.isError).toBe(true);
      expect(errorMeta(result)).toMatchObject({ kind: "validation", code: "invalid_arguments", retryable: false });
      expect(text(result)).toContain(
        `query ${JSON.stringify(query)} has no words to search for; use letters or digits (operators and punctuation are ignored), or read a ticket you know with get_ticket`,
      );
    }
  });

  it("C6: answers bad arguments with hints, never reaching the store", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ query: "x", limit: 999 }, "limit: must be at most 50 (got 999)"],
      [{ query: "x", limit: 0 }, "limit: must be at least 1 (got 0)"],
      [{ query: "x", limit: 2.5 }, "limit: must be an integer (got 2.5)"],
      [{ query: "x", status: "pending" }, 'status: must be one of "open", "closed", "any" (got "pending")'],
      [{}, "query: is required (a string)"],
      [{ query: 42 }, "query: must be a string (got 42)"],
      [{ query: "x", text: "y" }, "text: unknown argument; valid arguments: query, status, limit"],
    ];
    for (const [args, line] of cases) {
      const result = await call(h.client, "search_tickets", args);
      expect(result.isError).toBe(true);
      expect(text(result)).toBe(`Invalid arguments for tool search_tickets:\n${line}`);
      expect(errorMeta(result)).toMatchObject({ kind: "validation", code: "invalid_arguments", retryable: false });
    }
  });
});
