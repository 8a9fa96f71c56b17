// Hardening round 4 (issue 58) of the tasks extension in the core: the live-task limit on
// PostgreSQL across instances (58.4), malformed answers to a task's question (58.7), task options
// that cannot work, and the extension declared with a value that does not declare it (58.9).
import { type AnyTool, definePack, defineTool } from "@toolshed/schema";
import { createTestSchema, pgReachable, TEST_DATABASE_URL, type TestSchema } from "@toolshed/storage/postgres";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createLogger, createServer, PostgresTaskStore, type TaskOptions, type ToolshedServer } from "../src/index.js";
import type { Answer, CallScope } from "../src/internal.js";

const EXTENSION = "io.modelcontextprotocol/tasks";
const logger = createLogger({ level: "silent" });

const confirm = defineTool({
  name: "confirm_delete",
  description: "Asks the user before it deletes a file.",
  input: z.object({ filename: z.string().max(100).describe("The file") }),
  task: "required",
  handler: async ({ filename }, ctx) => {
    const answer = await ctx.elicitInput(
      {
        message: `Delete ${filename}?`,
        requestedSchema: { type: "object", properties: { confirm: { type: "boolean" } }, required: ["confirm"] },
      },
      { key: "confirm" },
    );
    return answer.action === "accept" ? `deleted ${filename}` : `kept ${filename}`;
  },
});
const optional = defineTool({
  name: "add",
  description: "Adds two numbers, as a task when the client allows one.",
  input: z.object({ a: z.number().describe("First"), b: z.number().describe("Second") }),
  task: "optional",
  handler: ({ a, b }) => a + b,
});

let server: ToolshedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function make(tools: AnyTool[], tasks?: TaskOptions): ToolshedServer {
  server = createServer({
    name: "t",
    version: "1",
    packs: [definePack({ name: "p", tools })],
    logger,
    ...(tasks === undefined ? {} : { tasks }),
  });
  return server;
}

let nextId = 0;
function modern(s: ToolshedServer, method: string, params: Record<string, unknown>, declared: unknown = {}) {
  const scope: CallScope = { signal: new AbortController().signal, logger };
  const body = {
    ...params,
    _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": { extensions: { [EXTENSION]: declared } },
    },
  };
  return s.core.dispatch({ jsonrpc: "2.0", id: ++nextId, method, params: body }, scope);
}

const result = (answer: Answer) => (answer as { result: Record<string, unknown> }).result;
const error = (answer: Answer) => (answer as { error?: { code: number; message: string } }).error;

async function until(s: ToolshedServer, taskId: string, status: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 300; i++) {
    const got = result(await modern(s, "tasks/get", { taskId }));
    if (got.status === status) return got;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`task ${taskId} never reached ${status}`);
}

describe("tasks/update answers (issue 58.7)", () => {
  it("a malformed answer is -32602 saying what the question expects, and the task keeps waiting for a good one", async () => {
    const s = make([confirm]);
    const taskId = String(
      result(await modern(s, "tools/call", { name: "confirm_delete", arguments: { filename: "a.txt" } })).taskId,
    );
    await until(s, taskId, "input_required");
    for (const bad of [{ action: 5 }, "accept", null, 0, [], { action: "accept", content: "yes" }]) {
      const answer = await modern(s, "tasks/update", { taskId, inputResponses: { confirm: bad } });
      expect(error(answer), JSON.stringify(bad)).toMatchObject({ code: -32602 });
      expect(error(answer)?.message).toMatch(
        /^Invalid params for tasks\/update: inputResponses\.confirm is not an answer to elicitation\/create \(.+\); send an elicitation result: \{"action": "accept", "content": \{…\}\}, or \{"action": "decline"\} or \{"action": "cancel"\}\. The task still waits for it$/,
      );
      expect(result(await modern(s, "tasks/get", { taskId }))).toMatchObject({
        status: "input_required",
        inputRequests: { confirm: { method: "elicitation/create" } },
      });
    }
    // An answer for a key no question has is ignored, whatever it holds; then the right answer ends the task.
    expect(result(await modern(s, "tasks/update", { taskId, inputResponses: { other: 5 } }))).toMatchObject({
      resultType: "complete",
    });
    await modern(s, "tasks/update", {
      taskId,
      inputResponses: { confirm: { action: "accept", content: { confirm: true } } },
    });
    expect(await until(s, taskId, "completed")).toMatchObject({
      result: { content: [{ type: "text", text: "deleted a.txt" }] },
    });
  });
});

describe("task options and declarations (issue 58.9)", () => {
  it("an option that cannot work fails at start, naming it and what would work", () => {
    const cases: Array<[TaskOptions, RegExp]> = [
      [
        { ttlMs: 0 },
        /^tasks\.ttlMs must be a whole number from 1 to 31536000000 \(how long a task and its result are kept, in ms\); got 0$/,
      ],
      [{ ttlMs: -1 }, /tasks\.ttlMs .*; got -1$/],
      [{ ttlMs: 1.5 }, /tasks\.ttlMs .*; got 1\.5$/],
      [{ ttlMs: Number.NaN }, /tasks\.ttlMs .*; got NaN$/],
      [{ ttlMs: 1e308 }, /tasks\.ttlMs .*; got 1e\+308$/],
      [{ ttlMs: Number.POSITIVE_INFINITY }, /tasks\.ttlMs .*; got Infinity$/],
      [{ maxLivePerCaller: 0 }, /^tasks\.maxLivePerCaller must be a whole number from 1 to 1000000 .*; got 0$/],
      [{ pollIntervalMs: "500" as unknown as number }, /^tasks\.pollIntervalMs .*; got "500"$/],
      [{ timeoutMs: 2 ** 31 }, /^tasks\.timeoutMs must be a whole number from 1 to 2147483647 .*; got 2147483648$/],
      [{ leaseMs: -5 }, /^tasks\.leaseMs .*; got -5$/],
    ];
    for (const [options, message] of cases) {
      expect(() => make([optional], options), JSON.stringify(options)).toThrow(message);
      // A server whose tools never run as tasks checks them too.
      expect(() => make([], options)).toThrow(message);
    }
    expect(() =>
      make([optional], { ttlMs: 1, maxLivePerCaller: 1, pollIntervalMs: 1, timeoutMs: 1, leaseMs: 3 }),
    ).not.toThrow();
  });

  it("the extension declared as null, false, 0, a string or a list is not declared: the call is answered in the call", async () => {
    const s = make([optional, confirm]);
    for (const declared of [null, false, 0, "yes", []]) {
      const answer = await modern(s, "tools/call", { name: "add", arguments: { a: 1, b: 2 } }, declared);
      expect(result(answer), JSON.stringify(declared)).toMatchObject({
        resultType: "complete",
        content: [{ type: "text", text: "3" }],
      });
      expect(result(answer).taskId).toBeUndefined();
      // A tool that runs only as a task, and tasks/get, need the extension.
      expect(
        error(await modern(s, "tools/call", { name: "confirm_delete", arguments: { filename: "x" } }, declared))?.code,
      ).toBe(-32021);
      expect(error(await modern(s, "tasks/get", { taskId: "x" }, declared))?.code).toBe(-32021);
    }
    expect(result(await modern(s, "tools/call", { name: "add", arguments: { a: 1, b: 2 } }, {}))).toMatchObject({
      resultType: "task",
    });
  });
});

// PostgreSQL: a schema of its own; skipped with a message when the database is not there, except
// under CI, where pgReachable fails the run.
const pg = await pgReachable();
if (!pg) process.stderr.write(`tasks on PostgreSQL SKIPPED: PostgreSQL (${TEST_DATABASE_URL}) is not reachable\n`);
let schema: TestSchema | undefined;
afterAll(async () => {
  await schema?.drop();
});

describe.runIf(pg)("the live-task limit on PostgreSQL (issue 58.4)", () => {
  const slow = defineTool({
    name: "slow",
    description: "Runs as a task until the test ends it.",
    input: z.object({}),
    task: "required",
    handler: (_args, ctx) =>
      new Promise<string>((resolve) => ctx.signal.addEventListener("abort", () => resolve("stopped"), { once: true })),
  });

  it("one caller's burst of 250 calls on two instances makes exactly its 100 tasks; the rest are told why", async () => {
    schema ??= await createTestSchema();
    const pools = [schema.pool({ max: 10 }), schema.pool({ max: 10 })];
    const instances: ToolshedServer[] = [];
    for (const pool of pools) {
      instances.push(
        createServer({
          name: "t",
          version: "1",
          packs: [definePack({ name: "p", tools: [slow] })],
          logger,
          tasks: { store: await PostgresTaskStore.open(pool), maxLivePerCaller: 100 },
        }),
      );
    }
    try {
      const answers = await Promise.all(
        Array.from({ length: 250 }, (_, i) =>
          modern(instances[i % 2] as ToolshedServer, "tools/call", { name: "slow", arguments: {} }),
        ),
      );
      const made = answers.filter((a) => result(a)?.resultType === "task");
      const refused = answers.filter((a) => error(a) !== undefined);
      expect(made).toHaveLength(100);
      expect(refused).toHaveLength(150);
      for (const a of refused) {
        expect(error(a)).toEqual({
          code: -32600,
          message:
            "Too many tasks: this caller has 100 tasks running; wait for one to end or cancel one with tasks/cancel",
        });
      }
      const { rows } = await (pools[0] as (typeof pools)[number]).query(
        "SELECT COUNT(*)::int AS n FROM toolshed_tasks",
      );
      expect(rows[0]).toEqual({ n: 100 });
    } finally {
      await Promise.all(instances.map((i) => i.close()));
    }
  });
});
