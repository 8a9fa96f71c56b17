import { describe, expect, it } from "vitest";
import { applyChange, ENDED_KEEPS, settleLostWorker, type TaskRecord } from "./task-record.js";

// A task with every field set: an ended one must keep exactly the fields ENDED_KEEPS marks 1.
const everyField: TaskRecord = {
  taskId: "t1",
  owner: "alice",
  toolName: "slow",
  status: "input_required",
  statusMessage: "waiting",
  createdAt: "2026-12-07T12:00:00.000Z",
  lastUpdatedAt: "2026-12-07T12:00:00.000Z",
  ttlMs: 60_000,
  pollIntervalMs: 100,
  result: { content: [] },
  error: { code: -1, message: "m" },
  inputRequests: { k: { method: "roots/list" } },
  inputResponses: { k: {} },
  progress: { progress: 1 },
  cancelRequested: true,
  worker: "w1",
  leaseUntil: 1,
};
const kept = Object.entries(ENDED_KEEPS)
  .filter(([, keep]) => keep === 1)
  .map(([key]) => key)
  .sort();

describe("an ended task", () => {
  it("lists every field of a task as kept or not", () => {
    expect(Object.keys(ENDED_KEEPS).sort()).toEqual(Object.keys(everyField).sort());
  });

  it("keeps every field but the questions, answers and lease, when a change ends it", () => {
    const now = new Date("2026-12-07T12:00:01.000Z");
    const ended = applyChange(everyField, { status: "cancelled" }, now);
    expect(Object.keys(ended ?? {}).sort()).toEqual(kept);
    expect(ended).toMatchObject({ status: "cancelled", lastUpdatedAt: now.toISOString(), worker: "w1" });
  });

  it("keeps the same when its worker is lost", () => {
    const now = new Date("2026-12-07T12:00:01.000Z");
    const failed = settleLostWorker(everyField, now);
    expect(Object.keys(failed).sort()).toEqual(kept);
    expect(failed).toMatchObject({ status: "failed", lastUpdatedAt: now.toISOString() });
  });
});
