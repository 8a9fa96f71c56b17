import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, errorMeta, type Harness, rowCounts, startHarness, text } from "./helpers.js";

let h: Harness;

beforeEach(async () => {
  h = await startHarness();
  await h.store.createTicket({ title: "Export times out", body: "CSV export fails.", priority: "high" });
  await h.store.createTicket({ title: "Dark mode", body: "Too dark.", priority: "low" });
  await h.store.addComment("T-1002", "Unrelated comment.");
  h.clock.advance(60);
});
afterEach(async () => {
  await h.close();
});

describe("add_ticket_comment", () => {
  it("adds a comment and returns it with the ticket's comment count", async () => {
    const result = await call(h.client, "add_ticket_comment", { id: "T-1001", body: "Customer confirmed." });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      ticket_id: "T-1001",
      comment: { id: 2, body: "Customer confirmed.", created_at: "2025-03-01T09:01:00.000Z" },
      comment_count: 1,
    });
    const second = await call(h.client, "add_ticket_comment", { id: "T-1001", body: "Fix deployed." });
    expect(second.structuredContent).toMatchObject({ comment: { id: 3 }, comment_count: 2 });
    const ticket = await call(h.client, "get_ticket", { id: "T-1001" });
    expect(ticket.structuredContent).toMatchObject({ updated_at: "2025-03-01T09:01:00.000Z", comment_count: 2 });
  });

  it("comments on closed tickets too", async () => {
    await h.store.updateTicketStatus("T-1001", { status: "closed", resolution: "Done" });
    const result = await call(h.client, "add_ticket_comment", { id: "T-1001", body: "Thanks!" });
    expect(result.structuredContent).toMatchObject({ comment_count: 1 });
  });

  it("bounds the body to 1-10000 characters", async () => {
    const before = rowCounts(h.raw);
    const long = await call(h.client, "add_ticket_comment", { id: "T-1001", body: "x".repeat(10_001) });
    expect(text(long)).toBe(
      "Invalid arguments for tool add_ticket_comment:\nbody: must be at most 10000 characters (got 10001)",
    );
    const empty = await call(h.client, "add_ticket_comment", { id: "T-1001", body: "" });
    expect(text(empty)).toBe("Invalid arguments for tool add_ticket_comment:\nbody: must not be empty");
    expect(rowCounts(h.raw)).toEqual(before);
    const max = await call(h.client, "add_ticket_comment", { id: "T-1001", body: "x".repeat(10_000) });
    expect(max.isError).toBeFalsy();
  });

  it("answers an unknown ticket with the closest ids and writes nothing", async () => {
    const before = rowCounts(h.raw);
    const result = await call(h.client, "add_ticket_comment", { id: "T-1003", body: "Hello", idempotency_key: "c1" });
    expect(text(result)).toBe(
      "Error executing tool add_ticket_comment: No ticket 'T-1003'. Closest ids: T-1001, T-1002",
    );
    expect(errorMeta(result)).toEqual({ kind: "tool", code: "not_found", retryable: false });
    expect(rowCounts(h.raw)).toEqual(before);
  });

  it("replays a repeated idempotency key and refuses it with another body", async () => {
    const first = await call(h.client, "add_ticket_comment", { id: "T-1001", body: "Once", idempotency_key: "c-1" });
    const again = await call(h.client, "add_ticket_comment", { id: "T-1001", body: "Once", idempotency_key: "c-1" });
    expect(again).toEqual(first);
    const other = await call(h.client, "add_ticket_comment", { id: "T-1001", body: "Twice", idempotency_key: "c-1" });
    expect(text(other)).toBe(
      "Error executing tool add_ticket_comment: idempotency_key 'c-1' was already used with different arguments; use a new key for a new request, or repeat the original arguments",
    );
    expect(errorMeta(other)).toMatchObject({ code: "conflict" });
    expect((await h.store.getTicket("T-1001")).comment_count).toBe(1);
  });
});
