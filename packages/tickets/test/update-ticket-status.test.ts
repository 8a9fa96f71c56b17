import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, errorMeta, type Harness, rowCounts, startHarness, text } from "./helpers.js";

let h: Harness;

beforeEach(async () => {
  h = await startHarness();
  await h.store.createTicket({ title: "Export times out", body: "CSV export fails.", priority: "high" });
  h.clock.advance(60);
});
afterEach(async () => {
  await h.close();
});

describe("update_ticket_status", () => {
  it("closes a ticket with a resolution", async () => {
    const result = await call(h.client, "update_ticket_status", {
      id: "T-1001",
      status: "closed",
      resolution: "Export now runs in the background.",
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      id: "T-1001",
      title: "Export times out",
      status: "closed",
      priority: "high",
      resolution: "Export now runs in the background.",
      created_at: "2025-03-01T09:00:00.000Z",
      updated_at: "2025-03-01T09:01:00.000Z",
      previous_status: "open",
      changed: true,
    });
  });

  it("C5/C6: closing without a resolution is refused on the resolution path", async () => {
    const result = await call(h.client, "update_ticket_status", { id: "T-1001", status: "closed" });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      'Invalid arguments for tool update_ticket_status:\nresolution: is required when status is "closed"',
    );
    expect(errorMeta(result)).toEqual({
      kind: "validation",
      code: "invalid_arguments",
      retryable: false,
      issues: [{ path: "resolution", message: 'is required when status is "closed"' }],
    });
    const blank = await call(h.client, "update_ticket_status", { id: "T-1001", status: "closed", resolution: " " });
    expect(text(blank)).toBe(
      "Invalid arguments for tool update_ticket_status:\nresolution: must contain text, not only spaces",
    );
    expect((await h.store.getTicket("T-1001")).status).toBe("open");
  });

  it("reopens a ticket, clearing its resolution; a resolution with open is refused", async () => {
    await h.store.updateTicketStatus("T-1001", { status: "closed", resolution: "Fixed" });
    h.clock.advance(60);
    const refused = await call(h.client, "update_ticket_status", { id: "T-1001", status: "open", resolution: "x" });
    expect(text(refused)).toBe(
      'Invalid arguments for tool update_ticket_status:\nresolution: must be omitted when status is "open"; reopening clears the resolution',
    );
    const result = await call(h.client, "update_ticket_status", { id: "T-1001", status: "open" });
    expect(result.structuredContent).toMatchObject({
      status: "open",
      resolution: null,
      updated_at: "2025-03-01T09:02:00.000Z",
      previous_status: "closed",
      changed: true,
    });
  });

  it("changes nothing when the ticket already has that status", async () => {
    const before = rowCounts(h.raw);
    h.clock.advance(60);
    const result = await call(h.client, "update_ticket_status", { id: "T-1001", status: "open" });
    expect(result.structuredContent).toMatchObject({
      status: "open",
      updated_at: "2025-03-01T09:00:00.000Z",
      previous_status: "open",
      changed: false,
    });
    expect(rowCounts(h.raw)).toEqual(before);
  });

  it("answers an unknown id with the closest ids, and a bad status with the allowed ones", async () => {
    const missing = await call(h.client, "update_ticket_status", { id: "T-1010", status: "open" });
    expect(text(missing)).toBe("Error executing tool update_ticket_status: No ticket 'T-1010'. Closest ids: T-1001");
    expect(errorMeta(missing)).toEqual({ kind: "tool", code: "not_found", retryable: false });
    const bad = await call(h.client, "update_ticket_status", { id: "T-1001", status: "resolved" });
    expect(text(bad)).toBe(
      'Invalid arguments for tool update_ticket_status:\nstatus: must be one of "open", "closed" (got "resolved")',
    );
  });
});
