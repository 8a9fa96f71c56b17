import type { TaskChange } from "@toolshed/server";
import { MemoryTaskStore } from "@toolshed/server";
import { connectPack } from "@toolshed/testing";
import { afterEach, describe, expect, it } from "vitest";
import { ticketsPack } from "../src/index.js";
import { call, errorMeta, type Harness, rowCounts, startHarness, text } from "./helpers.js";

let h: Harness;

afterEach(async () => {
  await h.close();
});

type Batch = {
  succeeded_count: number;
  failed_count: number;
  succeeded: Array<{ id: string; title: string; previous_status: string; status: string; changed: boolean }>;
  failed: Array<{ id: string; reason: string; message: string; retryable: boolean }>;
};

/** Tickets T-1001 .. T-100n, all open. */
async function seed(n: number): Promise<void> {
  for (let i = 1; i <= n; i++)
    await h.store.createTicket({ title: `Ticket ${i}`, body: `Body ${i}.`, priority: "normal" });
}

describe("bulk_update_ticket_status", () => {
  it("closes each ticket with the resolution and reports the previous status; repeating it changes nothing", async () => {
    h = await startHarness();
    await seed(3);
    const args = { ids: ["T-1002", "T-1001"], status: "closed", resolution: "Fixed in 2.4" };
    const result = await call(h.client, "bulk_update_ticket_status", args);
    const expected: Batch = {
      succeeded_count: 2,
      failed_count: 0,
      succeeded: [
        { id: "T-1002", title: "Ticket 2", previous_status: "open", status: "closed", changed: true },
        { id: "T-1001", title: "Ticket 1", previous_status: "open", status: "closed", changed: true },
      ],
      failed: [],
    };
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toEqual(expected);
    expect(text(result)).toBe(`All 2 items succeeded.\n\n${JSON.stringify(expected, null, 2)}`);
    for (const id of ["T-1001", "T-1002"]) {
      expect(await h.store.getTicket(id)).toMatchObject({ status: "closed", resolution: "Fixed in 2.4" });
    }
    expect((await h.store.getTicket("T-1003"))?.status).toBe("open");

    const again = await call(h.client, "bulk_update_ticket_status", args);
    expect((again.structuredContent as Batch).succeeded.map((s) => [s.previous_status, s.changed])).toEqual([
      ["closed", false],
      ["closed", false],
    ]);
    // Reopening clears the resolution, as update_ticket_status does.
    await call(h.client, "bulk_update_ticket_status", { ids: ["T-1001"], status: "open" });
    expect(await h.store.getTicket("T-1001")).toMatchObject({ status: "open", resolution: null });
  });

  it("C11: an unknown ticket fails on its own with the not-found hint; all failed is isError with their reason", async () => {
    h = await startHarness();
    await seed(2);
    const result = await call(h.client, "bulk_update_ticket_status", {
      ids: ["T-1001", "T-9999"],
      status: "closed",
      resolution: "Duplicate",
    });
    expect(result.isError).toBe(false);
    const batch = result.structuredContent as Batch;
    expect(batch.succeeded.map((s) => s.id)).toEqual(["T-1001"]);
    expect(batch.failed).toEqual([
      { id: "T-9999", reason: "not_found", message: expect.stringContaining("T-9999"), retryable: false },
    ]);
    expect(text(result).split("\n").slice(0, 2)).toEqual([
      "1 of 2 items succeeded, 1 failed.",
      `- T-9999: not_found: ${batch.failed[0]?.message}`,
    ]);
    const none = await call(h.client, "bulk_update_ticket_status", {
      ids: ["T-9998", "T-9999"],
      status: "closed",
      resolution: "Duplicate",
    });
    // Every item failed for one reason: the call's error is that reason.
    expect(none.isError).toBe(true);
    expect(errorMeta(none)).toEqual({ kind: "tool", code: "not_found", retryable: false });
    expect(text(none).split("\n")[0]).toBe("All 2 items failed.");
  });

  it("C6: repeated ids, a missing resolution and an empty list are refused with hints, writing nothing", async () => {
    h = await startHarness();
    await seed(2);
    const before = rowCounts(h.raw);
    const repeated = await call(h.client, "bulk_update_ticket_status", {
      ids: ["T-1001", "T-1002", "T-1001"],
      status: "open",
    });
    expect(text(repeated)).toBe(
      "Invalid arguments for tool bulk_update_ticket_status:\nids: must list each id once; remove the repeats of 'T-1001' (2 times)",
    );
    const unresolved = await call(h.client, "bulk_update_ticket_status", { ids: ["T-1001"], status: "closed" });
    expect(text(unresolved)).toBe(
      'Invalid arguments for tool bulk_update_ticket_status:\nresolution: is required when status is "closed"',
    );
    const empty = await call(h.client, "bulk_update_ticket_status", { ids: [], status: "open" });
    expect(empty.isError).toBe(true);
    expect(text(empty)).toMatch(/^Invalid arguments for tool bulk_update_ticket_status:\nids: /);
    const { tools } = await h.client.listTools();
    const input = tools.find((t) => t.name === "bulk_update_ticket_status")?.inputSchema;
    expect(input?.properties?.ids).toMatchObject({ type: "array", minItems: 1, maxItems: 100 });
    expect(rowCounts(h.raw)).toEqual(before);
    expect((await h.store.getTicket("T-1001"))?.status).toBe("open");
  });
});

describe("bulk_update_ticket_status as a task (2026-07-28, the tasks extension)", () => {
  /** Keeps every progress report a task writes, so none is missed between two polls. */
  class RecordingStore extends MemoryTaskStore {
    readonly reports: unknown[] = [];
    /** Runs as a report is written, before the next ticket's report can be. */
    onReport: ((progress: number) => Promise<unknown>) | undefined;
    override async update(taskId: string, change: TaskChange, now?: Date) {
      if (change.progress) {
        this.reports.push(change.progress);
        await this.onReport?.(change.progress.progress);
      }
      return super.update(taskId, change, now);
    }
  }

  it("answers with a task, reports each ticket as it ends, and ends with the partial-success envelope", async () => {
    h = await startHarness();
    await seed(3);
    const tasks = new RecordingStore();
    await using conn = await connectPack(ticketsPack({ store: h.store }), {
      era: "2026-07-28",
      tasks: { store: tasks },
      closePacks: false,
    });
    const created = await conn.request(
      "tools/call",
      {
        name: "bulk_update_ticket_status",
        arguments: { ids: ["T-1001", "T-9999", "T-1003"], status: "closed", resolution: "Fixed" },
      },
      { tasks: true },
    );
    expect(created).toMatchObject({ resultType: "task", status: "working" });
    const taskId = String(created.taskId);
    let got = await conn.request("tasks/get", { taskId }, { tasks: true });
    for (let i = 0; i < 200 && got.status === "working"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      got = await conn.request("tasks/get", { taskId }, { tasks: true });
    }
    expect(got).toMatchObject({
      status: "completed",
      result: {
        isError: false,
        structuredContent: {
          succeeded_count: 2,
          failed_count: 1,
          failed: [{ id: "T-9999", reason: "not_found", retryable: false }],
        },
      },
    });
    expect(tasks.reports).toEqual([
      { progress: 1, total: 3, message: "1 of 3 tickets" },
      { progress: 2, total: 3, message: "2 of 3 tickets" },
      { progress: 3, total: 3, message: "3 of 3 tickets" },
    ]);
  });

  it("cancelled midway, the task keeps the partial-success envelope: which tickets were closed, which were not attempted (issue 58.6)", async () => {
    h = await startHarness();
    await seed(12);
    const tasks = new RecordingStore();
    await using conn = await connectPack(ticketsPack({ store: h.store }), {
      era: "2026-07-28",
      tasks: { store: tasks },
      closePacks: false,
    });
    const ids = Array.from({ length: 12 }, (_, i) => `T-${1001 + i}`);
    let taskId = "";
    // The client cancels once four tickets have ended.
    tasks.onReport = async (done) => {
      if (done === 4) await conn.request("tasks/cancel", { taskId }, { tasks: true });
    };
    const created = await conn.request(
      "tools/call",
      { name: "bulk_update_ticket_status", arguments: { ids, status: "closed", resolution: "Fixed" } },
      { tasks: true },
    );
    taskId = String(created.taskId);
    let got = await conn.request("tasks/get", { taskId }, { tasks: true });
    for (let i = 0; i < 300 && got.status === "working"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      got = await conn.request("tasks/get", { taskId }, { tasks: true });
    }
    expect(got.status).toBe("cancelled");
    const batch = (got.result as { structuredContent: Batch } | undefined)?.structuredContent as Batch;
    expect(batch.succeeded_count + batch.failed_count).toBe(12);
    expect(batch.succeeded_count).toBeGreaterThanOrEqual(4);
    expect(batch.failed_count).toBeGreaterThan(0);
    for (const failed of batch.failed) {
      expect(failed).toMatchObject({
        reason: "cancelled",
        message: "not attempted: the call was cancelled",
        retryable: true,
      });
    }
    // What the envelope says is what the database holds.
    const closed: string[] = [];
    for (const id of ids) if ((await h.store.getTicket(id))?.status === "closed") closed.push(id);
    expect(batch.succeeded.map((t) => t.id).sort()).toEqual(closed.sort());
    expect(batch.failed.map((f) => f.id).sort()).toEqual(ids.filter((id) => !closed.includes(id)).sort());
  });
});
