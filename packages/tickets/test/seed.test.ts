import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { seedDemo } from "../src/index.js";
import { call, type Harness, rowCounts, startHarness } from "./helpers.js";

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

describe("seedDemo", () => {
  it("fills the store with realistic tickets, some closed, with comments", async () => {
    expect(await seedDemo(h.store)).toEqual({ tickets: 16, comments: 12 });
    expect(rowCounts(h.raw)).toMatchObject({ tickets: 16, comments: 12, fts: 16 });
    const closed = await h.store.listTickets({ status: "closed", limit: 50 });
    expect(closed.tickets.map((t) => t.id).sort()).toEqual(["T-1002", "T-1006", "T-1010", "T-1013", "T-1015"]);
    const found = await call(h.client, "search_tickets", { query: "password reset" });
    expect((found.structuredContent as { result: Array<{ id: string }> }).result.map((t) => t.id)).toEqual([
      "T-1009",
      "T-1001",
    ]);
    expect(await h.store.getTicket("T-1002")).toMatchObject({
      title: "Invoice PDF shows the wrong currency",
      status: "closed",
      resolution: "Fixed the locale lookup in the PDF template; invoices regenerated for March.",
      comment_count: 1,
    });
  });

  it("is idempotent: a second call writes nothing", async () => {
    await seedDemo(h.store);
    const before = rowCounts(h.raw);
    h.clock.advance(60);
    expect(await seedDemo(h.store)).toEqual({ tickets: 16, comments: 12 });
    expect(rowCounts(h.raw)).toEqual(before);
  });

  it("leaves demo tickets that were changed since as they are", async () => {
    await seedDemo(h.store);
    h.clock.advance(60);
    await h.store.updateTicketStatus("T-1002", { status: "open" });
    await h.store.updateTicketStatus("T-1001", { status: "closed", resolution: "Fixed the hash save." });
    await seedDemo(h.store);
    expect(await h.store.getTicket("T-1002")).toMatchObject({ status: "open", resolution: null });
    expect(await h.store.getTicket("T-1001")).toMatchObject({ status: "closed", resolution: "Fixed the hash save." });
  });
});
