import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, errorMeta, type Harness, startHarness, text } from "./helpers.js";

let h: Harness;

beforeEach(async () => {
  h = await startHarness();
  await h.store.createTicket({ title: "Export times out", body: "CSV export of 50k tasks fails.", priority: "high" });
  h.clock.advance(60);
  await h.store.addComment("T-1001", "Reproduced on staging.");
  h.clock.advance(60);
  await h.store.addComment("T-1001", "Moving it to a background job.");
});
afterEach(async () => {
  await h.close();
});

describe("get_ticket", () => {
  it("C1: returns the ticket with its comments, oldest first, and their count", async () => {
    const result = await call(h.client, "get_ticket", { id: "T-1001" });
    const expected = {
      id: "T-1001",
      title: "Export times out",
      body: "CSV export of 50k tasks fails.",
      status: "open",
      priority: "high",
      resolution: null,
      created_at: "2025-03-01T09:00:00.000Z",
      updated_at: "2025-03-01T09:02:00.000Z",
      comment_count: 2,
      comments: [
        { id: 1, body: "Reproduced on staging.", created_at: "2025-03-01T09:01:00.000Z" },
        { id: 2, body: "Moving it to a background job.", created_at: "2025-03-01T09:02:00.000Z" },
      ],
      next_comments_cursor: null,
    };
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual(expected);
    expect(text(result)).toBe(JSON.stringify(expected, null, 2));
  });

  it("pages older comments with comments_cursor", async () => {
    for (let i = 3; i <= 5; i++) await h.store.addComment("T-1001", `Comment ${i}`);
    const latest = await call(h.client, "get_ticket", { id: "T-1001", comments_limit: 2 });
    const first = latest.structuredContent as { comments: Array<{ body: string }>; next_comments_cursor: string };
    expect(first.comments.map((c) => c.body)).toEqual(["Comment 4", "Comment 5"]);
    const older = await call(h.client, "get_ticket", {
      id: "T-1001",
      comments_limit: 2,
      comments_cursor: first.next_comments_cursor,
    });
    const second = older.structuredContent as { comments: Array<{ body: string }>; next_comments_cursor: string };
    expect(second.comments.map((c) => c.body)).toEqual(["Moving it to a background job.", "Comment 3"]);
    const last = await call(h.client, "get_ticket", {
      id: "T-1001",
      comments_limit: 2,
      comments_cursor: second.next_comments_cursor,
    });
    expect(last.structuredContent).toMatchObject({
      comment_count: 5,
      comments: [{ body: "Reproduced on staging." }],
      next_comments_cursor: null,
    });
  });

  it("names the closest ids for an unknown ticket (not_found)", async () => {
    await h.store.createTicket({ title: "Second", body: "b", priority: "low" });
    const result = await call(h.client, "get_ticket", { id: "T-1020" });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(text(result)).toBe("Error executing tool get_ticket: No ticket 'T-1020'. Closest ids: T-1001, T-1002");
    expect(errorMeta(result)).toEqual({ kind: "tool", code: "not_found", retryable: false });
  });

  it("explains a malformed id or cursor", async () => {
    const badId = await call(h.client, "get_ticket", { id: "1001" });
    expect(text(badId)).toBe(
      'Invalid arguments for tool get_ticket:\nid: must be a ticket id such as "T-1001" (got "1001")',
    );
    const badCursor = await call(h.client, "get_ticket", { id: "T-1001", comments_cursor: "abc" });
    expect(text(badCursor)).toBe(
      "Invalid arguments for tool get_ticket:\ncomments_cursor is not valid; pass next_comments_cursor from the previous get_ticket call for T-1001 unchanged, or omit it for the latest comments",
    );
    expect(errorMeta(badCursor)).toEqual({
      kind: "validation",
      code: "invalid_arguments",
      retryable: false,
      issues: [{ path: "comments_cursor", message: "must be next_comments_cursor from get_ticket for T-1001" }],
    });
    const tooMany = await call(h.client, "get_ticket", { id: "T-1001", comments_limit: 101 });
    expect(text(tooMany)).toBe("Invalid arguments for tool get_ticket:\ncomments_limit: must be at most 100 (got 101)");
  });
});
