import { afterEach, describe, expect, it } from "vitest";
import { call, errorMeta, type Harness, startHarness, text } from "./helpers.js";

let h: Harness;
afterEach(async () => {
  await h.close();
});

describe("database failures", () => {
  it("C10: a write while another connection holds the lock is a retryable unavailable error", async () => {
    h = await startHarness({ busyTimeoutMs: 20 });
    await h.store.createTicket({ title: "Existing", body: "b", priority: "low" });
    h.raw.exec("BEGIN IMMEDIATE");
    try {
      const result = await call(h.client, "create_ticket", { title: "Blocked", body: "b" });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(
        /^Error executing tool create_ticket: the database is busy \(ref [0-9a-f]{8}\); temporary failure, safe to retry$/,
      );
      expect(errorMeta(result)).toMatchObject({ kind: "tool", code: "unavailable", retryable: true });
      // Reads go on under WAL while the write lock is held.
      const read = await call(h.client, "get_ticket", { id: "T-1001" });
      expect(read.isError).toBeFalsy();
    } finally {
      h.raw.exec("COMMIT");
    }
    const retried = await call(h.client, "create_ticket", { title: "Blocked", body: "b" });
    expect(retried.structuredContent).toMatchObject({ id: "T-1002" });
  });

  it("C7: an unexpected store failure is masked behind a reference that the log holds", async () => {
    h = await startHarness();
    await h.store.close();
    const result = await call(h.client, "search_tickets", { query: "anything" });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^Error executing tool search_tickets \(ref [0-9a-f]{8}\)$/);
    const meta = errorMeta(result) as { ref: string };
    expect(meta).toMatchObject({ kind: "internal", code: "internal_error", retryable: false });
    expect(h.logs.lines.some((l) => l.ref === meta.ref && JSON.stringify(l).includes("not open"))).toBe(true);
  });
});
