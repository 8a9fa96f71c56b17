// The tasks extension in the protocol core, in process: when the server offers it, a task's life
// on the default (in-memory) store, and what a 2025 client gets from a task-capable tool.
import { type AnyTool, definePack, defineTool } from "@toolshed/schema";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { connectInMemory, createLogger, createServer, type TaskOptions, type ToolshedServer } from "../src/index.js";
import type { Answer, CallScope } from "../src/internal.js";

const EXTENSION = "io.modelcontextprotocol/tasks";
const logger = createLogger({ level: "silent" });

const plain = defineTool({
  name: "echo",
  description: "Echoes its text.",
  input: z.object({ text: z.string().max(100).describe("What to echo") }),
  handler: ({ text }) => text,
});
const job = defineTool({
  name: "job",
  description: "Works a little, then answers; only as a task when the client allows one.",
  input: z.object({ steps: z.number().int().min(1).max(5).describe("How many steps") }),
  task: "required",
  handler: async ({ steps }, ctx) => {
    for (let i = 1; i <= steps; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      await ctx.progress(i, steps);
    }
    return `${steps} steps done`;
  },
});

const crash = defineTool({
  name: "crash",
  description: "Fails with an unexpected error.",
  input: z.object({}),
  task: "required",
  handler: () => {
    throw new Error("secret connection string");
  },
});

let server: ToolshedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function make(tools: AnyTool[] = [plain, job], tasks?: TaskOptions | false): ToolshedServer {
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
function modern(
  s: ToolshedServer,
  method: string,
  params: Record<string, unknown> = {},
  tasks = true,
): Promise<Answer> {
  const scope: CallScope = { signal: new AbortController().signal, logger };
  const body = {
    ...params,
    _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": tasks ? { extensions: { [EXTENSION]: {} } } : {},
    },
  };
  return s.core.dispatch({ jsonrpc: "2.0", id: ++nextId, method, params: body }, scope);
}

const result = (answer: Answer) => (answer as { result: Record<string, unknown> }).result;
const error = (answer: Answer) => (answer as { error: { code: number; message: string } }).error;

describe("the tasks extension in the core", () => {
  it("is offered on server/discover only by a server with a task-capable tool, and not with tasks: false", async () => {
    const extensions = async (s: ToolshedServer) =>
      (result(await modern(s, "server/discover")).capabilities as { extensions?: unknown }).extensions;
    expect(await extensions(make([plain]))).toBeUndefined();
    expect(error(await modern(server as ToolshedServer, "tasks/get", { taskId: "x" })).code).toBe(-32601);
    await server?.close();
    expect(await extensions(make())).toEqual({ [EXTENSION]: {} });
    await server?.close();
    expect(await extensions(make([plain, job], false))).toBeUndefined();
    expect(
      error(await modern(server as ToolshedServer, "tools/call", { name: "job", arguments: { steps: 1 } })),
    ).toMatchObject({ code: -32021 });
  });

  it("runs a task on the default store: created working, progress while it runs, the result inlined at the end", async () => {
    const s = make();
    const created = result(await modern(s, "tools/call", { name: "job", arguments: { steps: 3 } }));
    expect(created).toMatchObject({ resultType: "task", status: "working", ttlMs: 3_600_000, pollIntervalMs: 500 });
    const seen: Array<Record<string, unknown>> = [];
    for (let i = 0; i < 200; i++) {
      const task = result(await modern(s, "tasks/get", { taskId: created.taskId }));
      seen.push(task);
      if (task.status === "completed") break;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const last = seen.at(-1) as Record<string, unknown>;
    expect(last).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: "3 steps done" }] } });
    expect(seen.some((t) => (t.progress as { total?: number } | undefined)?.total === 3)).toBe(true);
    // The task's own requests need the extension too, and say so before looking the task up.
    expect(error(await modern(s, "tasks/get", { taskId: created.taskId }, false)).code).toBe(-32021);
  });

  it("a crash is a failed task whose error carries the class under the same key as any error, masked", async () => {
    const s = make([plain, job, crash]);
    const created = result(await modern(s, "tools/call", { name: "crash", arguments: {} }));
    let task: Record<string, unknown> = {};
    for (let i = 0; i < 200 && task.status !== "failed"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 2));
      task = result(await modern(s, "tasks/get", { taskId: created.taskId }));
    }
    const error = task.error as { code: number; message: string; data: Record<string, { ref?: string }> };
    expect(error).toMatchObject({
      code: -32603,
      data: { "toolshed.dev/error": { kind: "internal", code: "internal_error", retryable: false } },
    });
    expect(error.message).toContain(`ref ${error.data["toolshed.dev/error"]?.ref}`);
    expect(JSON.stringify(task)).not.toContain("secret");
    expect(task.result).toBeUndefined();
  });

  it("a 2025 client has no tasks: a task-capable tool answers it in the call", async () => {
    const client = await connectInMemory(make());
    const answer = await client.callTool({ name: "job", arguments: { steps: 2 } });
    expect(answer.content).toEqual([{ type: "text", text: "2 steps done" }]);
    await client.close();
  });
});
