import type { TaskChange } from "@toolshed/server";
import { MemoryTaskStore } from "@toolshed/server";
import { connectPack } from "@toolshed/testing";
import { afterEach, describe, expect, it } from "vitest";
import { crmPack } from "../src/index.js";
import { type CrmFixture, databaseState, errorMeta, startCrm, text } from "./helpers.js";

let crm: CrmFixture;

afterEach(async () => {
  await crm.close();
});

type Batch = {
  succeeded_count: number;
  failed_count: number;
  succeeded: Array<{ id: string; name: string; previous_tier: string; tier: string }>;
  failed: Array<{ id: string; reason: string; message: string; retryable: boolean }>;
};

const NOT_FOUND_9999 =
  "No account 'acc_9999'. Closest accounts: acc_1009 (Soylent Foods), acc_1019 (Wonka Confections), acc_1029 (Krusty Krab Restaurants), acc_1001 (Acme Corp), acc_1002 (Globex); crm_search_accounts finds accounts by name";
const ARCHIVED_1034 = "Account 'acc_1034' (Oscorp) is archived; archived accounts keep their tier";

describe("crm_bulk_update_tier", () => {
  it("updates every account and reports the previous tiers", async () => {
    crm = await startCrm();
    const result = await crm.call("crm_bulk_update_tier", {
      account_ids: ["acc_1006", "acc_1002"],
      new_tier: "enterprise",
    });
    const expected: Batch = {
      succeeded_count: 2,
      failed_count: 0,
      succeeded: [
        { id: "acc_1006", name: "Pied Piper", previous_tier: "startup", tier: "enterprise" },
        { id: "acc_1002", name: "Globex", previous_tier: "growth", tier: "enterprise" },
      ],
      failed: [],
    };
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toEqual(expected);
    expect(text(result)).toBe(`All 2 items succeeded.\n\n${JSON.stringify(expected, null, 2)}`);
    expect((await crm.store.getAccount("acc_1006"))?.tier).toBe("enterprise");
    expect((await crm.store.getAccount("acc_1002"))?.tier).toBe("enterprise");
  });

  it("repeating the call changes nothing more (idempotent)", async () => {
    crm = await startCrm();
    await crm.call("crm_bulk_update_tier", { account_ids: ["acc_1006"], new_tier: "growth" });
    const before = databaseState(crm.dbPath);
    const again = await crm.call("crm_bulk_update_tier", { account_ids: ["acc_1006"], new_tier: "growth" });
    expect(again.structuredContent).toEqual({
      succeeded_count: 1,
      failed_count: 0,
      succeeded: [{ id: "acc_1006", name: "Pied Piper", previous_tier: "growth", tier: "growth" }],
      failed: [],
    });
    expect(databaseState(crm.dbPath)).toEqual(before);
  });

  it("C11: some failed is not an error; each failure has its reason; archived accounts keep their tier", async () => {
    crm = await startCrm();
    const result = await crm.call("crm_bulk_update_tier", {
      account_ids: ["acc_1001", "acc_1034", "acc_9999"],
      new_tier: "growth",
    });
    const expected: Batch = {
      succeeded_count: 1,
      failed_count: 2,
      succeeded: [{ id: "acc_1001", name: "Acme Corp", previous_tier: "enterprise", tier: "growth" }],
      failed: [
        { id: "acc_1034", reason: "archived", message: ARCHIVED_1034, retryable: false },
        { id: "acc_9999", reason: "not_found", message: NOT_FOUND_9999, retryable: false },
      ],
    };
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toEqual(expected);
    expect(text(result)).toBe(
      [
        "1 of 3 items succeeded, 2 failed.",
        `- acc_1034: archived: ${ARCHIVED_1034}`,
        `- acc_9999: not_found: ${NOT_FOUND_9999}`,
        "",
        JSON.stringify(expected, null, 2),
      ].join("\n"),
    );
    expect(result._meta?.["toolshed.dev/error"]).toBeUndefined();
    expect((await crm.store.getAccount("acc_1034"))?.tier).toBe("enterprise");
  });

  it("C11: all failed is isError with the same structured content", async () => {
    crm = await startCrm();
    const result = await crm.call("crm_bulk_update_tier", {
      account_ids: ["acc_1034", "acc_9999"],
      new_tier: "growth",
    });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({
      succeeded_count: 0,
      failed_count: 2,
      succeeded: [],
      failed: [
        { id: "acc_1034", reason: "archived", message: ARCHIVED_1034, retryable: false },
        { id: "acc_9999", reason: "not_found", message: NOT_FOUND_9999, retryable: false },
      ],
    });
    expect(text(result).split("\n")[0]).toBe("All 2 items failed.");
    expect(errorMeta(result)).toEqual({ kind: "tool", code: "partial_failure", retryable: false });
    const missing = await crm.call("crm_bulk_update_tier", { account_ids: ["acc_9999"], new_tier: "growth" });
    expect(errorMeta(missing)).toEqual({ kind: "tool", code: "not_found", retryable: false });
  });

  it("store failures are per item: classified, retryable where they are, masked where unknown; the rest commit", async () => {
    crm = await startCrm({
      timeoutMs: 80,
      faults: {
        unavailable: (call) => call.method === "updateTier" && call.args[0] === "acc_1002",
        hang: (call) => call.method === "updateTier" && call.args[0] === "acc_1003",
        throwError: (call) =>
          call.method === "updateTier" && call.args[0] === "acc_1004"
            ? new Error("disk secret-s3cr3t full")
            : undefined,
      },
    });
    const result = await crm.call("crm_bulk_update_tier", {
      account_ids: ["acc_1001", "acc_1002", "acc_1003", "acc_1004", "acc_1006"],
      new_tier: "growth",
    });
    expect(result.isError).toBe(false);
    const batch = result.structuredContent as Batch;
    expect(batch.succeeded).toEqual([
      { id: "acc_1001", name: "Acme Corp", previous_tier: "enterprise", tier: "growth" },
      { id: "acc_1006", name: "Pied Piper", previous_tier: "startup", tier: "growth" },
    ]);
    expect(batch.failed).toEqual([
      {
        id: "acc_1002",
        reason: "unavailable",
        message: expect.stringMatching(/^a service this tool depends on could not be reached \(ref [0-9a-f]{8}\)$/),
        retryable: true,
      },
      { id: "acc_1003", reason: "timeout", message: "the CRM store did not answer within 80 ms", retryable: true },
      {
        id: "acc_1004",
        reason: "internal_error",
        message: expect.stringMatching(/^internal error \(ref [0-9a-f]{8}\)$/),
        retryable: false,
      },
    ]);
    expect(JSON.stringify(result)).not.toContain("s3cr3t");
    const ref = /ref ([0-9a-f]{8})/.exec(batch.failed[2]?.message ?? "")?.[1];
    const logged = crm.logs.find((line) => line.ref === ref);
    expect(logged).toMatchObject({ level: 50, tool: "crm_bulk_update_tier", item: "acc_1004" });
    expect(JSON.stringify(logged)).toContain("secret-s3cr3t");
    // A classified item failure is logged under its ref as a warning, as on a single call (C10).
    const dropped = /ref ([0-9a-f]{8})/.exec(batch.failed[0]?.message ?? "")?.[1];
    const warned = crm.logs.find((line) => line.ref === dropped);
    expect(warned).toMatchObject({ level: 40, tool: "crm_bulk_update_tier", item: "acc_1002", code: "unavailable" });
    expect(JSON.stringify(warned)).toContain("ECONNRESET");
    expect(crm.faulty.abortedCalls).toBe(1);
    const tiers = await Promise.all(
      ["acc_1001", "acc_1002", "acc_1003", "acc_1004", "acc_1006"].map((id) => crm.store.getAccount(id)),
    );
    expect(tiers.map((a) => a?.tier)).toEqual(["growth", "growth", "growth", "enterprise", "growth"]);
  });

  it("all failed with retryable reasons is a retryable error", async () => {
    crm = await startCrm({ faults: { unavailable: true } });
    const result = await crm.call("crm_bulk_update_tier", {
      account_ids: ["acc_1001", "acc_1002"],
      new_tier: "growth",
    });
    expect(result.isError).toBe(true);
    expect(errorMeta(result)).toEqual({ kind: "tool", code: "unavailable", retryable: true });
    expect(text(result).split("\n")[0]).toBe("All 2 items failed; temporary failure, safe to retry.");
  });

  it("new_tier is one of the three tiers (the seed takes any string): published as an enum and checked", async () => {
    crm = await startCrm();
    const { tools } = await crm.client.listTools();
    const input = tools.find((t) => t.name === "crm_bulk_update_tier")?.inputSchema;
    expect(input?.properties?.new_tier).toMatchObject({ type: "string", enum: ["startup", "growth", "enterprise"] });
    const before = databaseState(crm.dbPath);
    const result = await crm.call("crm_bulk_update_tier", { account_ids: ["acc_1001"], new_tier: "platinum" });
    expect(text(result)).toBe(
      'Invalid arguments for tool crm_bulk_update_tier:\nnew_tier: must be one of "startup", "growth", "enterprise" (got "platinum")',
    );
    expect(databaseState(crm.dbPath)).toEqual(before);
  });

  it("C6: repeated ids are named in the hint, and the list is bounded", async () => {
    crm = await startCrm();
    const before = databaseState(crm.dbPath);
    const repeated = await crm.call("crm_bulk_update_tier", {
      account_ids: ["acc_1001", "acc_1002", "acc_1001", "acc_1002", "acc_1002"],
      new_tier: "growth",
    });
    expect(text(repeated)).toBe(
      "Invalid arguments for tool crm_bulk_update_tier:\naccount_ids: must list each id once; remove the repeats of 'acc_1001' (2 times), 'acc_1002' (3 times)",
    );
    expect(text(await crm.call("crm_bulk_update_tier", { account_ids: [], new_tier: "growth" }))).toBe(
      "Invalid arguments for tool crm_bulk_update_tier:\naccount_ids: must have at least 1 item (got 0)",
    );
    const tooMany = Array.from({ length: 101 }, (_, i) => `acc_${i}`);
    expect(text(await crm.call("crm_bulk_update_tier", { account_ids: tooMany, new_tier: "growth" }))).toBe(
      "Invalid arguments for tool crm_bulk_update_tier:\naccount_ids: must have at most 100 items (got 101)",
    );
    expect(databaseState(crm.dbPath)).toEqual(before);
  });
});

describe("crm_bulk_update_tier as a task (2026-07-28, the tasks extension)", () => {
  /** Keeps every progress report a task writes, so none is missed between two polls. */
  class RecordingStore extends MemoryTaskStore {
    readonly reports: unknown[] = [];
    override async update(taskId: string, change: TaskChange, now?: Date) {
      if (change.progress) this.reports.push(change.progress);
      return super.update(taskId, change, now);
    }
  }

  it("answers at once with a task, reports each account as it ends, and ends with the partial-success envelope", async () => {
    crm = await startCrm({ faults: { latencyMs: 5 } });
    const store = new RecordingStore();
    await using conn = await connectPack(crmPack({ store: crm.faulty }), {
      era: "2026-07-28",
      tasks: { store },
      closePacks: false,
    });
    const ids = ["acc_1006", "acc_1002", "acc_9999", "acc_1034", "acc_1003"];
    const created = await conn.request(
      "tools/call",
      { name: "crm_bulk_update_tier", arguments: { account_ids: ids, new_tier: "enterprise" } },
      { tasks: true },
    );
    expect(created).toMatchObject({ resultType: "task", status: "working" });
    let task: Record<string, unknown> = {};
    for (let i = 0; i < 500 && task.status !== "completed"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      task = await conn.request("tasks/get", { taskId: created.taskId }, { tasks: true });
    }
    expect(store.reports).toEqual(
      [1, 2, 3, 4, 5].map((done) => ({ progress: done, total: 5, message: `${done} of 5 accounts` })),
    );
    const batch = (task.result as { structuredContent: Batch }).structuredContent;
    expect(task.result).toMatchObject({ isError: false });
    expect(batch).toMatchObject({ succeeded_count: 3, failed_count: 2 });
    expect(batch.succeeded.map((s) => s.id)).toEqual(["acc_1006", "acc_1002", "acc_1003"]);
    expect(batch.failed).toEqual([
      { id: "acc_9999", reason: "not_found", message: NOT_FOUND_9999, retryable: false },
      { id: "acc_1034", reason: "archived", message: ARCHIVED_1034, retryable: false },
    ]);
    expect((await crm.store.getAccount("acc_1003"))?.tier).toBe("enterprise");
  });
});
