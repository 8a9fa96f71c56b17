import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, errorMeta, type Harness, rowCounts, startHarness, text } from "./helpers.js";

let h: Harness;

beforeEach(async () => {
  h = await startHarness();
  await h.store.createTicket({
    title: "Password reset email never arrives",
    body: "Nothing in the inbox.",
    priority: "high",
  });
  await h.store.createTicket({ title: "Login fails after password reset", body: "Rejected.", priority: "high" });
  await h.store.createTicket({ title: "Reset link shows 404", body: "Old link format.", priority: "normal" });
  await h.store.updateTicketStatus("T-1003", { status: "closed", resolution: "Redirect added" });
  await h.store.createTicket({ title: "Dark mode colours", body: "Too dark.", priority: "low" });
  h.clock.advance(3600);
});
afterEach(async () => {
  await h.close();
});

describe("create_ticket", () => {
  it("C1: creates an open ticket with the default priority and names similar open tickets", async () => {
    const result = await call(h.client, "create_ticket", {
      title: "Password reset link expired",
      body: "The link in the email says it expired.",
    });
    const expected = {
      id: "T-1005",
      title: "Password reset link expired",
      body: "The link in the email says it expired.",
      status: "open",
      priority: "normal",
      resolution: null,
      created_at: "2025-03-01T10:00:00.000Z",
      updated_at: "2025-03-01T10:00:00.000Z",
      // Both share "password" and "reset"; T-1003 does too but is closed, T-1004 shares nothing.
      similar: [
        { id: "T-1002", title: "Login fails after password reset" },
        { id: "T-1001", title: "Password reset email never arrives" },
      ],
    };
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual(expected);
    expect(text(result)).toBe(JSON.stringify(expected, null, 2));
    const stored = await call(h.client, "get_ticket", { id: "T-1005" });
    expect(stored.structuredContent).toMatchObject({ title: "Password reset link expired", comment_count: 0 });
  });

  it("stores the given priority and finds nothing similar for new words", async () => {
    const result = await call(h.client, "create_ticket", {
      title: "Printer jams",
      body: "Tray 2.",
      priority: "urgent",
    });
    expect(result.structuredContent).toMatchObject({ id: "T-1005", priority: "urgent", similar: [] });
  });

  it("C6: rejects empty, blank, too long or unknown arguments with hints, writing nothing", async () => {
    const before = rowCounts(h.raw);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ title: "", body: "b" }, "title: must not be empty"],
      [{ title: "   ", body: "b" }, "title: must contain text, not only spaces"],
      [{ title: "x".repeat(201), body: "b" }, "title: must be at most 200 characters (got 201)"],
      [{ title: "t" }, "body: is required (a string)"],
      [
        { title: "t", body: "b", priority: "p1" },
        'priority: must be one of "low", "normal", "high", "urgent" (got "p1")',
      ],
      [{ title: "t", body: "b", idempotency_key: "" }, "idempotency_key: must not be empty"],
      [
        { title: "t", body: "b", idempotency_key: "k".repeat(129) },
        "idempotency_key: must be at most 128 characters (got 129)",
      ],
      [
        { title: "t", body: "b", severity: "high" },
        "severity: unknown argument; valid arguments: title, body, priority, idempotency_key",
      ],
    ];
    for (const [args, line] of cases) {
      const result = await call(h.client, "create_ticket", args);
      expect(text(result)).toBe(`Invalid arguments for tool create_ticket:\n${line}`);
      expect(errorMeta(result)).toMatchObject({ kind: "validation", code: "invalid_arguments", retryable: false });
    }
    expect(rowCounts(h.raw)).toEqual(before);
  });

  it("returns the first result for a repeated idempotency key, and a conflict for other arguments", async () => {
    const args = { title: "Printer jams", body: "Tray 2.", idempotency_key: "req-1" };
    const first = await call(h.client, "create_ticket", args);
    h.clock.advance(60);
    const again = await call(h.client, "create_ticket", args);
    expect(again).toEqual(first);
    const other = await call(h.client, "create_ticket", { ...args, priority: "high" });
    expect(other.isError).toBe(true);
    expect(text(other)).toBe(
      "Error executing tool create_ticket: idempotency_key 'req-1' was already used with different arguments; use a new key for a new request, or repeat the original arguments",
    );
    expect(errorMeta(other)).toEqual({ kind: "tool", code: "conflict", retryable: false });
    expect(rowCounts(h.raw).tickets).toBe(5);
  });
});
