// The tasks extension (io.modelcontextprotocol/tasks, 2026-07-28) as a client sees it over HTTP
// (tasks-client.ts), against startHttpServer on a SQLite file, where the app keeps tasks by default.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ToolError } from "@toolshed/errors";
import { definePack, defineTool } from "@toolshed/schema";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { type RunningHttpServer, startHttpServer } from "../src/index.js";
import { EXTENSION, ended, expectAck, type RpcOptions, rpc as rawRpc, until as rawUntil } from "./tasks-client.js";

/** Alice's requests unless another token is given. */
const rpc = (url: string, method: string, params: Record<string, unknown>, options: RpcOptions = {}) =>
  rawRpc(url, method, params, { token: ALICE, ...options });
const until = (url: string, taskId: string, done: (task: Record<string, unknown>) => boolean) =>
  rawUntil(url, taskId, done, ALICE);

const ALICE = "alice-token-0123456789abcdef0123456789";
const BOB = "bob-token-0123456789abcdef0123456789ab";

/** Gates a test opens to let a handler go on, by name. */
const gates = new Map<string, { opened: Promise<void>; open: () => void }>();
function newGate(name: string) {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  gates.set(name, { opened, open });
  return open;
}
/** Why handlers were stopped, by tool. */
const aborted: string[] = [];

function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    signal.addEventListener("abort", () => {
      aborted.push(String((signal.reason as Error)?.message ?? signal.reason));
      reject(signal.reason);
    });
  });
}

const pack = definePack({
  name: "jobs",
  tools: [
    defineTool({
      name: "count_items",
      description: "Counts items one by one, reporting progress; may run as a task.",
      input: z.object({
        items: z.number().int().min(1).max(50).describe("How many items"),
        gate: z.string().max(40).describe("Waits at item 2 until the test opens this gate"),
      }),
      output: z.object({ counted: z.number().int() }),
      task: "optional",
      handler: async ({ items, gate: name }, ctx) => {
        for (let i = 1; i <= items; i++) {
          if (i === 2) await gates.get(name)?.opened;
          await ctx.progress(i, items, `item ${i}`);
        }
        return { counted: items };
      },
    }),
    defineTool({
      name: "wait_forever",
      description: "Works until cancelled.",
      input: z.object({}),
      task: "required",
      handler: (_args, ctx) => untilAborted(ctx.signal),
    }),
    defineTool({
      name: "ask_then_work",
      description: "Asks for a name in the call, starts its task, then asks for a confirmation inside it.",
      input: z.object({}),
      task: { mode: "required", start: "handler" },
      handler: async (_args, ctx) => {
        const name = await ctx.elicitInput(
          {
            message: "Your name?",
            requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
          },
          { key: "name" },
        );
        await ctx.startTask();
        const sure = await ctx.elicitInput(
          {
            message: "Go ahead?",
            requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
          },
          { key: "confirm" },
        );
        if (sure.action !== "accept") throw new ToolError("not confirmed", { code: "failed_precondition" });
        return `Hello, ${String(name.content?.name)}: done`;
      },
    }),
    defineTool({
      name: "too_slow",
      description: "Never finishes within its 300 ms limit.",
      input: z.object({}),
      task: "optional",
      timeoutMs: 300,
      handler: (_args, ctx) => untilAborted(ctx.signal),
    }),
  ],
});

const dirs: string[] = [];
const servers: RunningHttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDb(): string {
  const dir = mkdtempSync(join(tmpdir(), "toolshed-tasks-"));
  dirs.push(dir);
  return join(dir, "toolshed.db");
}

async function serve(db = tempDb(), maxLivePerCaller?: number): Promise<RunningHttpServer> {
  const server = await startHttpServer({
    host: "127.0.0.1",
    port: 0,
    db,
    packs: [],
    extraPacks: [pack],
    logLevel: "silent",
    rateLimit: 0,
    tokens: `${ALICE}:tools:read tools:write;${BOB}:tools:read tools:write`,
    app: { tasks: { pollIntervalMs: 100, ...(maxLivePerCaller === undefined ? {} : { maxLivePerCaller }) } },
  });
  servers.push(server);
  return server;
}

describe("tasks over HTTP (2026-07-28, SQLite)", () => {
  it("an optional tool answers in the call without the extension, and as a task with it: progress in tasks/get, the result inlined once done", async () => {
    const { url } = await serve();
    const direct = await rpc(
      url,
      "tools/call",
      { name: "count_items", arguments: { items: 3, gate: "none" } },
      { tasks: false },
    );
    expect(direct.result).toMatchObject({ resultType: "complete", structuredContent: { counted: 3 } });

    const open = newGate("g1");
    const created = await rpc(url, "tools/call", { name: "count_items", arguments: { items: 3, gate: "g1" } });
    expect(created.status).toBe(200);
    const task = created.result as Record<string, unknown>;
    expect(task).toMatchObject({ resultType: "task", status: "working", ttlMs: 3_600_000, pollIntervalMs: 100 });
    expect(Object.keys(task).sort()).toEqual(
      ["_meta", "createdAt", "lastUpdatedAt", "pollIntervalMs", "resultType", "status", "taskId", "ttlMs"].sort(),
    );
    const taskId = String(task.taskId);
    const working = await until(url, taskId, (t) => t.progress !== undefined);
    expect(working).toMatchObject({
      resultType: "complete",
      taskId,
      status: "working",
      progress: { progress: 1, total: 3, message: "item 1" },
    });
    open();
    const done = await until(url, taskId, ended);
    expect(done).toMatchObject({ status: "completed", result: { structuredContent: { counted: 3 } } });
    expect(done.progress).toBeUndefined();
  });

  it("invalid arguments are answered in the call, as a direct call's, and make no task", async () => {
    const { url } = await serve();
    const answer = await rpc(url, "tools/call", { name: "count_items", arguments: { items: 500, gate: "x" } });
    expect(answer.result).toMatchObject({
      resultType: "complete",
      isError: true,
      _meta: { "toolshed.dev/error": { code: "invalid_arguments", retryable: false } },
    });
    expect(answer.result?.taskId).toBeUndefined();
    expect(JSON.stringify(answer.result?.content)).toContain("items");
  });

  it("a required-task tool without the extension is -32021 with the capability it needs", async () => {
    const { url } = await serve();
    const answer = await rpc(url, "tools/call", { name: "wait_forever", arguments: {} }, { tasks: false });
    expect(answer.status).toBe(400);
    expect(answer.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [EXTENSION]: {} } } },
    });
  });

  it("tasks/cancel aborts the handler's signal and the task ends cancelled; cancelling it again is the same ack", async () => {
    const { url } = await serve();
    const created = await rpc(url, "tools/call", { name: "wait_forever", arguments: {} });
    const taskId = String(created.result?.taskId);
    const before = aborted.length;
    expectAck(await rpc(url, "tasks/cancel", { taskId }));
    const done = await until(url, taskId, ended);
    expect(done.status).toBe("cancelled");
    expect(done.result).toBeUndefined();
    expect(aborted.length).toBe(before + 1);
    expectAck(await rpc(url, "tasks/cancel", { taskId }));
  });

  it("a task is its token's: another token is told it is unknown, on get, update and cancel alike", async () => {
    const { url } = await serve();
    const created = await rpc(url, "tools/call", { name: "wait_forever", arguments: {} });
    const taskId = String(created.result?.taskId);
    const unknown = `Unknown task: ${taskId}; it may have expired, or it was made by another caller. Use the taskId a tools/call returned`;
    for (const [method, params] of [
      ["tasks/get", { taskId }],
      ["tasks/update", { taskId, inputResponses: {} }],
      ["tasks/cancel", { taskId }],
    ] as const) {
      const answer = await rpc(url, method, params, { token: BOB });
      expect(answer.error, method).toEqual({ code: -32602, message: unknown });
    }
    expect((await rpc(url, "tasks/get", { taskId })).result?.status).toBe("working");
    await rpc(url, "tasks/cancel", { taskId });
    await until(url, taskId, ended);
  });

  it("input before the task is a round of the call; input inside it waits in tasks/get until tasks/update", async () => {
    const { url } = await serve();
    const round1 = await rpc(url, "tools/call", { name: "ask_then_work", arguments: {} });
    expect(round1.result).toMatchObject({
      resultType: "input_required",
      inputRequests: { name: { method: "elicitation/create" } },
    });
    expect(round1.result?.taskId).toBeUndefined();
    const round2 = await rpc(url, "tools/call", {
      name: "ask_then_work",
      arguments: {},
      inputResponses: { name: { action: "accept", content: { name: "Ada" } } },
      requestState: round1.result?.requestState,
    });
    expect(round2.result).toMatchObject({ resultType: "task", status: "working" });
    expect(round2.result?.requestState).toBeUndefined();
    const taskId = String(round2.result?.taskId);
    const waiting = await until(url, taskId, (t) => t.status === "input_required");
    expect(waiting.inputRequests).toMatchObject({ confirm: { method: "elicitation/create" } });
    const ack = await rpc(url, "tasks/update", {
      taskId,
      inputResponses: { confirm: { action: "accept", content: { ok: true } } },
    });
    expectAck(ack);
    const done = await until(url, taskId, ended);
    expect(done).toMatchObject({
      status: "completed",
      result: { content: [{ type: "text", text: "Hello, Ada: done" }] },
    });
  });

  it("a tool's time limit ends its task as a completed tool error of class timeout, retryable", async () => {
    const { url } = await serve();
    const created = await rpc(url, "tools/call", { name: "too_slow", arguments: {} });
    const done = await until(url, String(created.result?.taskId), ended);
    expect(done).toMatchObject({
      status: "completed",
      result: { isError: true, _meta: { "toolshed.dev/error": { code: "timeout", retryable: true } } },
    });
  });

  it("each caller may have so many live tasks; the next call says how to go on", async () => {
    const { url } = await serve(undefined, 2);
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      ids.push(String((await rpc(url, "tools/call", { name: "wait_forever", arguments: {} })).result?.taskId));
    }
    const third = await rpc(url, "tools/call", { name: "wait_forever", arguments: {} });
    expect(third.error?.message).toBe(
      "Too many tasks: this caller has 2 tasks running; wait for one to end or cancel one with tasks/cancel",
    );
    // Another caller is not held back by Alice's tasks.
    expect(
      (await rpc(url, "tools/call", { name: "wait_forever", arguments: {} }, { token: BOB })).result?.resultType,
    ).toBe("task");
    await rpc(url, "tasks/cancel", { taskId: ids[0] as string });
    await until(url, ids[0] as string, ended);
    expect((await rpc(url, "tools/call", { name: "wait_forever", arguments: {} })).result?.resultType).toBe("task");
  });

  it("calls made together cannot pass the limit: tasks still being written count", async () => {
    const { url } = await serve(undefined, 3);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => rpc(url, "tools/call", { name: "wait_forever", arguments: {} })),
    );
    const made = answers.filter((a) => a.result?.resultType === "task");
    expect(made).toHaveLength(3);
    for (const refused of answers.filter((a) => a.result === undefined)) {
      expect(refused.error?.message).toMatch(/^Too many tasks: this caller has 3 tasks running/);
    }
    for (const a of made) await rpc(url, "tasks/cancel", { taskId: String(a.result?.taskId) });
  });

  it("tasks are kept in the SQLite file: a finished one is read after a restart; one running at shutdown ends failed, retryable", async () => {
    const db = tempDb();
    const first = await serve(db);
    const finished = await rpc(first.url, "tools/call", { name: "count_items", arguments: { items: 2, gate: "none" } });
    const finishedId = String(finished.result?.taskId);
    await until(first.url, finishedId, ended);
    const running = await rpc(first.url, "tools/call", { name: "wait_forever", arguments: {} });
    const runningId = String(running.result?.taskId);
    await first.close();
    servers.splice(servers.indexOf(first), 1);

    const second = await serve(db);
    expect(await until(second.url, finishedId, ended)).toMatchObject({
      status: "completed",
      result: { structuredContent: { counted: 2 } },
    });
    const stopped = await until(second.url, runningId, ended);
    expect(stopped).toMatchObject({
      status: "failed",
      statusMessage: "the server stopped while the task ran; call the tool again",
      error: {
        code: -32603,
        message: "the server stopped while the task ran; call the tool again",
        data: { "toolshed.dev/error": { code: "unavailable", retryable: true } },
      },
    });
    expect(stopped.result).toBeUndefined();
  });
});
