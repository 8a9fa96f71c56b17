// notifications/tasks: a 2026-07-28 client that lists task ids in subscriptions/listen hears each
// change of their status on that stream (the task as tasks/get would answer it), whether the task
// runs on the instance it listens to or on another one sharing the SQLite file.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { definePack, defineTool } from "@toolshed/schema";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { type RunningHttpServer, startHttpServer } from "../src/index.js";
import { EXTENSION, expectAck, listen, type RpcOptions, rpc as rawRpc } from "./tasks-client.js";

const ALICE = "alice-token-0123456789abcdef0123456789";
const BOB = "bob-token-0123456789abcdef0123456789ab";
const rpc = (url: string, method: string, params: Record<string, unknown>, options: RpcOptions = {}) =>
  rawRpc(url, method, params, { token: ALICE, ...options });
const TAG = { "io.modelcontextprotocol/subscriptionId": expect.any(Number) };

/** Gates a test opens to let a handler finish, by name. */
const gates = new Map<string, () => void>();

const pack = definePack({
  name: "jobs",
  tools: [
    defineTool({
      name: "wait_gate",
      description: "Works until the test opens its gate, then says so.",
      input: z.object({ gate: z.string().max(40).describe("The gate to wait for") }),
      task: "required",
      handler: async ({ gate }, ctx) => {
        await new Promise<void>((resolve, reject) => {
          gates.set(gate, resolve);
          ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason));
        });
        return `${gate} opened`;
      },
    }),
    defineTool({
      name: "confirm",
      description: "Asks for a confirmation inside its task.",
      input: z.object({}),
      task: "required",
      handler: async (_args, ctx) => {
        const answer = await ctx.elicitInput(
          {
            message: "Go ahead?",
            requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
          },
          { key: "go" },
        );
        return `confirmed=${answer.content?.ok === true}`;
      },
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
  const dir = mkdtempSync(join(tmpdir(), "toolshed-tasks-notify-"));
  dirs.push(dir);
  return join(dir, "toolshed.db");
}

async function serve(db: string): Promise<RunningHttpServer> {
  const server = await startHttpServer({
    host: "127.0.0.1",
    port: 0,
    db,
    packs: [],
    extraPacks: [pack],
    logLevel: "silent",
    rateLimit: 0,
    tokens: `${ALICE}:tools:read tools:write;${BOB}:tools:read tools:write`,
    app: { tasks: { pollIntervalMs: 100 } },
  });
  servers.push(server);
  return server;
}

async function newTask(url: string, name: string, args: Record<string, unknown>, token = ALICE): Promise<string> {
  const created = await rpc(url, "tools/call", { name, arguments: args }, { token });
  expect(created.result).toMatchObject({ resultType: "task", status: "working" });
  return String(created.result?.taskId);
}

describe("notifications/tasks on subscriptions/listen (SQLite)", () => {
  it("tells the caller's own tasks only, each status as tasks/get shows it, the result inlined at the end", async () => {
    const { url } = await serve(tempDb());
    const mine = await newTask(url, "wait_gate", { gate: "a1" });
    const asking = await newTask(url, "confirm", {});
    const bobs = await newTask(url, "wait_gate", { gate: "b1" }, BOB);
    const stream = await listen(
      url,
      { taskIds: [mine, asking, bobs, "no-such-task"], toolsListChanged: true },
      { token: ALICE },
    );
    try {
      expect(stream.status).toBe(200);
      expect(await stream.next()).toMatchObject({
        method: "notifications/subscriptions/acknowledged",
        params: { notifications: { taskIds: [mine, asking] } },
      });
      // First each task as it stands: a client that listens late misses no end.
      const first = [await stream.next(), await stream.next()];
      const byId = new Map(first.map((m) => [(m.params as { taskId: string }).taskId, m]));
      expect(byId.get(mine)).toEqual({
        jsonrpc: "2.0",
        method: "notifications/tasks",
        params: {
          _meta: TAG,
          taskId: mine,
          status: "working",
          createdAt: expect.any(String),
          lastUpdatedAt: expect.any(String),
          ttlMs: expect.any(Number),
          pollIntervalMs: 100,
        },
      });
      // The question may or may not have been asked yet when the stream opened.
      let question = byId.get(asking) as { params: Record<string, unknown> };
      if (question.params.status === "working") question = (await stream.next()) as typeof question;
      expect(question.params).toMatchObject({
        taskId: asking,
        status: "input_required",
        inputRequests: { go: { method: "elicitation/create", params: { message: "Go ahead?" } } },
      });
      expect(question.params).not.toHaveProperty("resultType");

      expectAck(
        await rpc(url, "tasks/update", {
          taskId: asking,
          inputResponses: { go: { action: "accept", content: { ok: true } } },
        }),
      );
      // Working again once answered, then completed with the handler's result.
      expect((await stream.next()).params).toMatchObject({ taskId: asking, status: "working" });
      const done = await stream.next();
      expect(done.params).toMatchObject({
        taskId: asking,
        status: "completed",
        result: { content: [{ type: "text", text: "confirmed=true" }] },
      });
      const got = await rpc(url, "tasks/get", { taskId: asking });
      const { _meta: _, ...told } = done.params as Record<string, unknown>;
      const { resultType, _meta: __, ...read } = got.result ?? {};
      expect(resultType).toBe("complete");
      expect(told).toEqual(read);

      gates.get("a1")?.();
      expect((await stream.next()).params).toMatchObject({
        taskId: mine,
        status: "completed",
        result: { content: [{ type: "text", text: "a1 opened" }] },
      });
      // Bob's task ends too: Alice's stream hears nothing of it, for longer than two beats.
      gates.get("b1")?.();
      for (
        let i = 0;
        i < 100 && (await rpc(url, "tasks/get", { taskId: bobs }, { token: BOB })).result?.status !== "completed";
        i++
      ) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const quiet = new Promise((resolve) => setTimeout(() => resolve("quiet"), 700));
      expect(await Promise.race([stream.next(), quiet])).toBe("quiet");
    } finally {
      stream.close();
    }
  });

  it("a task that ended before the stream opened is told once, at once", async () => {
    const { url } = await serve(tempDb());
    const taskId = await newTask(url, "wait_gate", { gate: "c1" });
    gates.get("c1")?.();
    for (let i = 0; i < 100 && (await rpc(url, "tasks/get", { taskId })).result?.status !== "completed"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const stream = await listen(url, { taskIds: [taskId, taskId] }, { token: ALICE });
    try {
      expect((await stream.next()).params).toMatchObject({ notifications: { taskIds: [taskId] } });
      expect((await stream.next()).params).toMatchObject({ taskId, status: "completed" });
    } finally {
      stream.close();
    }
  });

  it("a change on another instance sharing the file reaches the stream within a beat", async () => {
    const db = tempDb();
    const a = await serve(db);
    const b = await serve(db);
    const taskId = await newTask(a.url, "wait_gate", { gate: "d1" });
    const stream = await listen(b.url, { taskIds: [taskId] }, { token: ALICE });
    try {
      expect((await stream.next()).params).toMatchObject({ notifications: { taskIds: [taskId] } });
      expect((await stream.next()).params).toMatchObject({ taskId, status: "working" });
      expectAck(await rpc(b.url, "tasks/cancel", { taskId }));
      const started = Date.now();
      expect((await stream.next()).params).toMatchObject({ taskId, status: "cancelled" });
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      stream.close();
    }
  });

  it("taskIds without the extension is refused with -32021; taskIds that are not a list of ids with -32602", async () => {
    const { url } = await serve(tempDb());
    const undeclared = await listen(url, { taskIds: ["x"] }, { token: ALICE, tasks: false });
    try {
      expect(await undeclared.next()).toMatchObject({
        error: {
          code: -32021,
          message: expect.stringContaining(EXTENSION),
          data: { requiredCapabilities: { extensions: { [EXTENSION]: {} } } },
        },
      });
    } finally {
      undeclared.close();
    }
    const wrong = await listen(url, { taskIds: "x" }, { token: ALICE });
    try {
      expect(await wrong.next()).toMatchObject({
        error: { code: -32602, message: expect.stringContaining("taskIds must be a list of task ids") },
      });
    } finally {
      wrong.close();
    }
  });
});
