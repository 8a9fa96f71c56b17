// A task made before its handler runs: the handler starts while the task is written, a quick one's
// end is written with the task (SQLite), and a task that cannot be kept stops its handler.
import { definePack, defineTool } from "@toolshed/schema";
import { openSqlite } from "@toolshed/storage";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createLogger,
  createServer,
  MemoryTaskStore,
  SqliteTaskStore,
  type TaskRecord,
  type ToolshedServer,
} from "../src/index.js";
import type { Answer, CallScope } from "../src/internal.js";

const logger = createLogger({ level: "silent" });

const add = defineTool({
  name: "add",
  description: "Adds two numbers.",
  input: z.object({ a: z.number().describe("First"), b: z.number().describe("Second") }),
  output: z.object({ sum: z.number() }),
  task: "optional",
  handler: ({ a, b }) => ({ sum: a + b }),
});

let server: ToolshedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

let nextId = 0;
function call(s: ToolshedServer, method: string, params: Record<string, unknown>): Promise<Answer> {
  const scope: CallScope = { signal: new AbortController().signal, logger };
  const _meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
  };
  return s.core.dispatch({ jsonrpc: "2.0", id: ++nextId, method, params: { ...params, _meta } }, scope);
}

const result = (answer: Answer) => (answer as { result: Record<string, unknown> }).result;

describe("a task made before its handler runs", () => {
  it("on SQLite, a task that ends before it is written is written once, already completed", async () => {
    const db = openSqlite(":memory:");
    // Counts the statements that change a task after its insert.
    let updates = 0;
    const counted = {
      exec: (sql: string) => db.exec(sql),
      transaction: db.transaction.bind(db) as typeof db.transaction,
      prepare(sql: string) {
        const statement = db.prepare(sql);
        if (!sql.startsWith("UPDATE")) return statement;
        return {
          run: (...args: unknown[]) => {
            updates++;
            return statement.run(...(args as never[]));
          },
          get: statement.get.bind(statement),
          all: statement.all.bind(statement),
        };
      },
    };
    server = createServer({
      name: "t",
      version: "1",
      packs: [definePack({ name: "p", tools: [add] })],
      logger,
      tasks: { store: new SqliteTaskStore(counted) },
    });
    const created = result(await call(server, "tools/call", { name: "add", arguments: { a: 2, b: 3 } }));
    expect(created).toMatchObject({ resultType: "task", status: "working" });
    // As the call answers, the row is there with the task's end in it, and nothing was updated.
    const row = db.prepare("SELECT status, data FROM toolshed_tasks WHERE task_id = ?").get(created.taskId) as {
      status: string;
      data: string;
    };
    expect(row.status).toBe("completed");
    expect((JSON.parse(row.data) as TaskRecord).result).toMatchObject({ structuredContent: { sum: 5 } });
    expect(updates).toBe(0);
    const got = result(await call(server, "tasks/get", { taskId: created.taskId }));
    expect(got).toMatchObject({ status: "completed", result: { structuredContent: { sum: 5 } } });
    db.close();
  });

  it.each([
    ["a store that writes in groups: the handler started at once is stopped", true],
    ["a store that writes each task at once: the handler never starts", false],
  ])("a task that cannot be kept answers the call with an error (%s)", async (_what, groups) => {
    let signal: AbortSignal | undefined;
    const slow = defineTool({
      name: "slow",
      description: "Waits until stopped.",
      input: z.object({}),
      task: "required",
      handler: (_args, ctx) =>
        new Promise<string>((resolve) => {
          signal = ctx.signal;
          ctx.signal.addEventListener("abort", () => resolve("stopped"));
        }),
    });
    class Failing extends MemoryTaskStore {
      override async create(_task: TaskRecord): Promise<void> {
        await new Promise((resolve) => setTimeout(resolve, 5));
        throw new Error("disk I/O error");
      }
    }
    // A store with updateUnwritten writes in groups (as SqliteTaskStore): the runner starts the work at once.
    class FailingInGroups extends Failing {
      updateUnwritten() {
        return undefined;
      }
    }
    server = createServer({
      name: "t",
      version: "1",
      packs: [definePack({ name: "p", tools: [slow] })],
      logger,
      tasks: { store: groups ? new FailingInGroups() : new Failing() },
    });
    const answer = await call(server, "tools/call", { name: "slow", arguments: {} });
    const error = (answer as { error?: { code: number; message: string } }).error;
    expect(error?.code).toBe(-32603);
    expect(error?.message).not.toContain("disk");
    if (groups) expect(signal?.aborted).toBe(true);
    else expect(signal).toBeUndefined();
  });
});
