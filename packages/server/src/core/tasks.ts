import { randomBytes } from "node:crypto";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import {
  CreateMessageResultSchema,
  ElicitResultSchema,
  ListRootsResultSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { ERROR_META_KEY, isToolError, UnavailableError } from "@toolshed/errors";
import type { AuthInfo, ToolContext } from "@toolshed/schema";
import { Cancellation } from "../cancellation.js";
import type { Envelope } from "../envelope.js";
import { JsonRpcCode, JsonRpcError } from "../jsonrpc-error.js";
import { toolErrorAsProtocolError } from "../middleware.js";
import { type Params, requireString } from "../params.js";
import { principalOf } from "../request-state.js";
import { isoTime, isTerminal, type TaskChange, type TaskRecord } from "../tasks/task-record.js";
import { MemoryTaskStore, type TaskStore, TooManyTasksError } from "../tasks/task-store.js";
import { TaskWatchers } from "./task-watch.js";

/** What of a request the runner reads (not the core's Call: types.ts names the runner). */
interface TaskRequest {
  method: string;
  params: Params;
  scope: { authInfo?: AuthInfo | undefined };
}

// The io.modelcontextprotocol/tasks extension (2026-07-28): a tools/call that becomes a task, and
// tasks/get, tasks/update and tasks/cancel.

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** Whether this request declared the extension in its envelope's client capabilities. */
export function declaresTasks(envelope: Envelope | undefined): boolean {
  const extensions = (envelope?.clientCapabilities as { extensions?: Record<string, unknown> } | undefined)?.extensions;
  if (typeof extensions !== "object" || extensions === null) return false;
  // Declared with its settings object (`{}`): null, false or 0 do not declare it.
  const declared = extensions[TASKS_EXTENSION];
  return typeof declared === "object" && declared !== null && !Array.isArray(declared);
}

/** -32021 for a request that needs the extension it did not declare. */
export function tasksRequired(what: string): JsonRpcError {
  return new JsonRpcError(
    JsonRpcCode.MissingRequiredClientCapability,
    `Missing required client capability: the ${TASKS_EXTENSION} extension (${what}); declare it under extensions in _meta["io.modelcontextprotocol/clientCapabilities"]`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
  );
}

/** Asks the client through the task: parks it at input_required until the answer comes. */
type Asker = (
  method: string,
  params: unknown,
  key: string | undefined,
  schema: { parse(v: unknown): unknown },
) => Promise<unknown>;

/** A task this process made and runs the work of. */
export interface StartedTask {
  readonly taskId: string;
  readonly toolName: string;
  /** Aborted by tasks/cancel (or the server closing): the handler's signal. */
  readonly cancel: Cancellation;
  /** The flat CreateTaskResult that tools/call answers. */
  readonly answer: Record<string, unknown>;
  /** Settles once the task is kept: its handler's writes (progress, questions) wait for it. */
  readonly written: Promise<void>;
}

/** What a task's handler gets instead of the request's: questions wait in the task, progress is kept in it. */
export type TaskContext = Pick<ToolContext, "createMessage" | "elicitInput" | "listRoots" | "progress" | "log">;

export interface TaskOptions {
  /** Where tasks live (default: this process's memory; the apps use the server's SQLite file). */
  store?: TaskStore;
  /** How long a task and its result are kept (default 1 hour). */
  ttlMs?: number;
  /** How often clients are told to poll (default 500 ms). */
  pollIntervalMs?: number;
  /** Tasks one caller may have running at once (default 100). */
  maxLivePerCaller?: number;
  /** How long a task's handler may run when its tool sets no `timeoutMs` (default 10 minutes). */
  timeoutMs?: number;
  /**
   * How long a task outlives a silent server (default 10 s): the server running a task renews its
   * lease every second or so; when it stops (killed, crashed), any instance reads the task as failed
   * with a retryable error once the lease has run out.
   */
  leaseMs?: number;
}

/** Each numeric task option: its bounds (whole milliseconds or a count) and what it is for. */
const TASK_OPTION_BOUNDS = {
  // A year at most: expiry times stay exact integers in every store (PostgreSQL BIGINT, JSON).
  ttlMs: [1, 365 * 24 * 60 * 60 * 1000, "how long a task and its result are kept, in ms"],
  pollIntervalMs: [1, 24 * 60 * 60 * 1000, "how often clients are told to poll, in ms"],
  maxLivePerCaller: [1, 1_000_000, "how many tasks one caller may have running"],
  // Node's timers take at most 2^31 - 1 ms.
  timeoutMs: [1, 2 ** 31 - 1, "how long a task's handler may run, in ms"],
  leaseMs: [3, 2 ** 31 - 1, "how long a task outlives a silent server, in ms"],
} as const;

/** Throws a TypeError naming a task option that cannot work and what would. */
export function checkTaskOptions(options: TaskOptions): void {
  for (const [name, [min, max, what]] of Object.entries(TASK_OPTION_BOUNDS)) {
    const value = (options as Record<string, unknown>)[name];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
      throw new TypeError(
        `tasks.${name} must be a whole number from ${min} to ${max} (${what}); got ${typeof value === "number" ? String(value) : (JSON.stringify(value) ?? typeof value)}`,
      );
    }
  }
}

/** Runs a tools/call as a task: the handler in the background, its end written to the store. */
export class TaskRunner {
  readonly #store: TaskStore;
  readonly #ttlMs: number;
  readonly #pollIntervalMs: number;
  readonly #maxLive: number;
  /** The time limit of a task's handler when its tool sets none. */
  readonly timeoutMs: number;
  /** Tasks whose handler runs in this process, by id. */
  readonly #running = new Map<string, Cancellation>();
  /** Running tasks not kept yet: not renewed until they are. */
  readonly #unwritten = new Set<string>();
  /** Their ends being written, so that close() can wait for them. */
  readonly #finishing = new Set<Promise<void>>();
  /** This process, as the worker of the tasks it runs. */
  readonly #worker = randomBytes(9).toString("base64url");
  readonly #leaseMs: number;
  /** The listen streams told of task changes (notifications/tasks). */
  readonly watchers: TaskWatchers;
  #heartbeat: NodeJS.Timeout | undefined;
  #lastPrune = 0;

  /** `options` as checked by checkTaskOptions (the protocol core checks them at start). */
  constructor(options: TaskOptions) {
    this.#store = options.store ?? new MemoryTaskStore();
    this.#ttlMs = options.ttlMs ?? 60 * 60 * 1000;
    this.#pollIntervalMs = options.pollIntervalMs ?? 500;
    this.#maxLive = options.maxLivePerCaller ?? 100;
    this.timeoutMs = options.timeoutMs ?? 10 * 60 * 1000;
    this.#leaseMs = options.leaseMs ?? 10_000;
    this.watchers = new TaskWatchers(this.#store);
  }

  /** Makes a task for this call; it is kept (a tasks/get finds it) before this resolves. */
  async create(call: TaskRequest, toolName: string): Promise<StartedTask> {
    const task = await this.#newTask(call, toolName);
    await this.#keep(task);
    const started = startedTask(task, toolName, Promise.resolve());
    this.#running.set(task.taskId, started.cancel);
    this.#beat();
    return started;
  }

  /**
   * Makes a task for this call and starts `work` at once, while the task is being written; resolves
   * once it is kept. Work that ends before then is written with the task (one write for a quick
   * task). When the task cannot be kept, the work is stopped and this rejects.
   */
  async start(
    call: TaskRequest,
    toolName: string,
    work: (task: StartedTask) => Promise<CallToolResult>,
  ): Promise<StartedTask> {
    const task = await this.#newTask(call, toolName);
    // A store that writes in groups counts the tasks waiting for their write: the work starts at
    // once. Any other holds the limit in its create (across instances): the work waits for it.
    const written = this.#keep(task);
    if (this.#store.updateUnwritten === undefined) await written;
    const started = startedTask(task, toolName, written);
    const { cancel } = started;
    // Running here from now on (close() stops it), renewed once it is kept.
    this.#running.set(task.taskId, cancel);
    this.#unwritten.add(task.taskId);
    this.finish(started, work(started));
    try {
      await written;
    } catch (error) {
      cancel.abort(new UnavailableError("the task could not be kept; call the tool again"));
      this.#running.delete(task.taskId);
      throw error;
    } finally {
      this.#unwritten.delete(task.taskId);
    }
    this.#beat();
    return started;
  }

  /** Writes a new task, the caller's live-task limit held by the store; too many is -32600. */
  async #keep(task: TaskRecord): Promise<void> {
    try {
      await this.#store.create(task, this.#maxLive);
    } catch (error) {
      throw error instanceof TooManyTasksError ? this.#tooMany() : error;
    }
  }

  #tooMany(): JsonRpcError {
    return new JsonRpcError(
      JsonRpcCode.InvalidRequest,
      `Too many tasks: this caller has ${this.#maxLive} tasks running; wait for one to end or cancel one with tasks/cancel`,
    );
  }

  /** A new task of this caller, refused when the caller has as many running as it may. */
  async #newTask(call: TaskRequest, toolName: string): Promise<TaskRecord> {
    const owner = principalOf(call.scope.authInfo) ?? "";
    if ((await this.#store.liveCount(owner)) >= this.#maxLive) throw this.#tooMany();
    const now = isoTime(new Date());
    return {
      taskId: newTaskId(),
      owner,
      toolName,
      status: "working",
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: this.#ttlMs,
      pollIntervalMs: this.#pollIntervalMs,
      worker: this.#worker,
      leaseUntil: Date.now() + this.#leaseMs,
    };
  }

  /** Records how a started task's work ends: completed, failed (a protocol error or a crash) or cancelled. */
  finish(task: StartedTask, work: Promise<CallToolResult>): void {
    const finishing = this.#finish(task, work);
    this.#finishing.add(finishing);
    void finishing.finally(() => this.#finishing.delete(finishing));
  }

  /** Stops the tasks running here: each ends failed with a retryable error, written before this resolves. */
  async close(): Promise<void> {
    for (const cancel of this.#running.values()) {
      cancel.abort(new UnavailableError("the server stopped while the task ran; call the tool again"));
    }
    await Promise.allSettled([...this.#finishing]);
    clearTimeout(this.#heartbeat);
    this.#heartbeat = undefined;
    this.watchers.close();
  }

  /**
   * While tasks run here: renews their leases, stops the handlers whose cancel was asked for on
   * any instance, and now and then removes expired tasks. Does not keep the process alive.
   */
  #beat(): void {
    if (this.#heartbeat !== undefined || this.#running.size === 0) return;
    const every = Math.max(50, Math.min(1_000, Math.floor(this.#leaseMs / 3)));
    this.#heartbeat = setTimeout(async () => {
      const ids = [...this.#running.keys()].filter((taskId) => !this.#unwritten.has(taskId));
      try {
        const stop = ids.length === 0 ? [] : await this.#store.renew(this.#worker, ids, Date.now() + this.#leaseMs);
        for (const taskId of stop) {
          this.#running.get(taskId)?.abort(cancelled());
        }
        if (Date.now() - this.#lastPrune > 60_000) {
          this.#lastPrune = Date.now();
          await this.#store.prune();
        }
      } catch {
        // The store is down for now: the next beat tries again, before the leases run out.
      }
      this.#heartbeat = undefined;
      this.#beat();
    }, every);
    this.#heartbeat.unref();
  }

  async #finish(task: StartedTask, work: Promise<CallToolResult>): Promise<void> {
    const { taskId, toolName, cancel } = task;
    try {
      const result = await work;
      const kind = (result._meta?.[ERROR_META_KEY] as { kind?: unknown } | undefined)?.kind;
      if (cancel.aborted && isToolError(cancel.reason)) {
        // The server stopped under it: failed, with the class a client retries on.
        const e = toolErrorAsProtocolError(`tools/call ${toolName}`, cancel.reason);
        await this.#write(task, {
          status: "failed",
          error: { code: e.code, message: e.message, data: e.data },
          statusMessage: e.message,
        });
      } else if (cancel.aborted) {
        // What the handler ended with after the cancel (a partial batch) is kept with the task.
        // The cancellation's own error (no structured content) is not a result to keep.
        const code = (result._meta?.[ERROR_META_KEY] as { code?: unknown } | undefined)?.code;
        const own = code === "cancelled" && result.structuredContent === undefined;
        await this.#write(
          task,
          own ? { status: "cancelled" } : { status: "cancelled", result: result as Record<string, unknown> },
        );
      } else if (result.isError && kind === "internal") {
        // A crash (masked, C7) is a protocol-level failure of the task, not a tool error.
        const text = (result.content?.[0] as { text?: string } | undefined)?.text ?? "Internal error";
        await this.#write(task, {
          status: "failed",
          // Under the same key as every other error's class (C9): a client reads one shape.
          error: {
            code: JsonRpcCode.InternalError,
            message: text,
            data: { [ERROR_META_KEY]: result._meta?.[ERROR_META_KEY] },
          },
          statusMessage: text,
        });
      } else await this.#write(task, { status: "completed", result: result as Record<string, unknown> });
    } catch (error) {
      const e = error instanceof JsonRpcError ? error : new JsonRpcError(JsonRpcCode.InternalError, "Internal error");
      const failure: { code: number; message: string; data?: unknown } = { code: e.code, message: e.message };
      if (e.data !== undefined) failure.data = e.data;
      await this.#write(
        task,
        cancel.aborted ? { status: "cancelled" } : { status: "failed", error: failure, statusMessage: e.message },
      ).catch(() => undefined);
    } finally {
      this.#running.delete(taskId);
    }
  }

  /** A change by the task's work: with the task's own write when that is still waiting, else after it. */
  async #write({ taskId, written }: StartedTask, change: TaskChange): Promise<TaskRecord | undefined> {
    const task = await (this.#store.updateUnwritten?.(taskId, change) ??
      written.then(() => this.#store.update(taskId, change)));
    if (task !== undefined && this.watchers.active) this.watchers.changed(task);
    return task;
  }

  /** The handler's questions, progress and logs inside the task. */
  context(task: StartedTask): TaskContext {
    // Progress is kept in the task (tasks/get shows it); each write waits for the one before.
    let writing: Promise<unknown> = Promise.resolve();
    // Made on the first question: most tasks ask none, and every task gets a context.
    let asker: Asker | undefined;
    const ask: Asker = (method, params, key, schema) => {
      asker ??= this.#asker(task);
      return asker(method, params, key, schema);
    };
    return {
      createMessage: (params, options) =>
        ask("sampling/createMessage", params, options?.key, CreateMessageResultSchema) as never,
      elicitInput: (params, options) => ask("elicitation/create", params, options?.key, ElicitResultSchema) as never,
      listRoots: (options) => ask("roots/list", undefined, options?.key, ListRootsResultSchema) as never,
      progress: (progress, total, message) => {
        const value: { progress: number; total?: number; message?: string } = { progress };
        if (total !== undefined) value.total = total;
        if (message !== undefined) value.message = message;
        writing = writing.then(() => this.#write(task, { progress: value })).catch(() => undefined);
        return writing.then(() => undefined);
      },
      // No stream is open to the client while a task runs: tasks/get is how it hears of one.
      log: () => Promise.resolve(),
    };
  }

  /** Questions from a task park it at input_required until tasks/update answers them. */
  #asker(task: StartedTask): Asker {
    const { taskId, cancel } = task;
    let next = 0;
    // Answers taken from the store, shared by every question of this task that is waiting.
    const received: Record<string, unknown> = {};
    return async (method, params, key, schema) => {
      const k = key ?? `${method.split("/")[0]}-${++next}`;
      await this.#write(task, {
        ask: { [k]: { method, ...(params === undefined ? {} : { params: params as Record<string, unknown> }) } },
      });
      for (;;) {
        if (cancel.aborted) throw cancel.reason;
        Object.assign(received, await this.#store.takeAnswers(taskId));
        if (Object.hasOwn(received, k)) {
          const answer = received[k];
          delete received[k];
          return schema.parse(answer);
        }
        // The answer comes through the store, from whichever instance got the tasks/update.
        await new Promise<void>((resolve) => setTimeout(resolve, 100));
      }
    };
  }

  /** tasks/get: the task, with its result, error or questions by status. */
  async get(call: TaskRequest): Promise<Record<string, unknown>> {
    const task = await this.#find(call);
    return wireTask("complete", task, true);
  }

  /** tasks/update: answers for the task's questions. */
  async update(call: TaskRequest): Promise<Record<string, unknown>> {
    const taskId = requireString("tasks/update", call.params, "taskId", "the task id from tools/call");
    const responses = call.params.inputResponses;
    if (typeof responses !== "object" || responses === null || Array.isArray(responses)) {
      throw new JsonRpcError(
        JsonRpcCode.InvalidParams,
        "Invalid params for tasks/update: inputResponses must be an object of answers by the keys tasks/get listed",
      );
    }
    const owner = principalOf(call.scope.authInfo) ?? "";
    // Each answer must be what its question asks for: a malformed one is refused here, and the
    // task keeps waiting, rather than ending the task when its handler reads it.
    const task = await this.#store.get(taskId, owner);
    if (task === undefined) throw unknownTask(taskId);
    const asked = task.inputRequests ?? {};
    for (const [key, value] of Object.entries(responses as Record<string, unknown>)) {
      if (Object.hasOwn(asked, key)) checkAnswer(key, (asked[key] as { method: string }).method, value);
    }
    if (!(await this.#store.answer(taskId, owner, responses as Record<string, unknown>))) throw unknownTask(taskId);
    // Answers may set the task working again: a listener hears of it now, not on the next beat.
    if (this.watchers.active) {
      const task = await this.#store.get(taskId, owner);
      if (task !== undefined) this.watchers.changed(task);
    }
    return { resultType: "complete" };
  }

  /** tasks/cancel: the task's handler is aborted; an ended task is left as it was. */
  async cancel(call: TaskRequest): Promise<Record<string, unknown>> {
    const taskId = requireString("tasks/cancel", call.params, "taskId", "the task id from tools/call");
    const owner = principalOf(call.scope.authInfo) ?? "";
    if (!(await this.#store.cancel(taskId, owner))) throw unknownTask(taskId);
    this.#running.get(taskId)?.abort(cancelled());
    return { resultType: "complete" };
  }

  async #find(call: TaskRequest): Promise<TaskRecord> {
    const taskId = requireString(call.method, call.params, "taskId", "the task id from tools/call");
    const task = await this.#store.get(taskId, principalOf(call.scope.authInfo) ?? "");
    if (task === undefined) throw unknownTask(taskId);
    return task;
  }
}

/** What each kind of question takes as its answer, and how to say it. */
const ANSWERS: Record<string, { schema: typeof ElicitResultSchema; expects: string }> = {
  "elicitation/create": {
    schema: ElicitResultSchema,
    expects:
      'an elicitation result: {"action": "accept", "content": {…}}, or {"action": "decline"} or {"action": "cancel"}',
  },
  "sampling/createMessage": {
    schema: CreateMessageResultSchema as unknown as typeof ElicitResultSchema,
    expects: 'a sampling result: {"role": "assistant", "content": {"type": "text", "text": "…"}, "model": "…"}',
  },
  "roots/list": {
    schema: ListRootsResultSchema as unknown as typeof ElicitResultSchema,
    expects: 'a roots list: {"roots": [{"uri": "file:///…"}]}',
  },
};

/** -32602 for an answer its question cannot take, saying what it expects. */
function checkAnswer(key: string, method: string, value: unknown): void {
  const answer = ANSWERS[method];
  if (answer === undefined) return;
  const parsed = answer.schema.safeParse(value);
  if (parsed.success) return;
  const problems = parsed.error.issues
    .slice(0, 3)
    .map((i) => `${i.path.length > 0 ? `${i.path.join(".")}: ` : ""}${i.message}`)
    .join("; ");
  throw new JsonRpcError(
    JsonRpcCode.InvalidParams,
    `Invalid params for tasks/update: inputResponses.${key} is not an answer to ${method} (${problems}); send ${answer.expects}. The task still waits for it`,
  );
}

/** How long a cancelled task waits for its handler to end with what it applied (a partial batch). */
const CANCEL_SETTLE_MS = 5_000;

/** Why a handler's signal is aborted by tasks/cancel, on this instance or another. */
const cancelled = () => new JsonRpcError(JsonRpcCode.InvalidRequest, "the task was cancelled");

const unknownTask = (taskId: string) =>
  new JsonRpcError(
    JsonRpcCode.InvalidParams,
    `Unknown task: ${taskId}; it may have expired, or it was made by another caller. Use the taskId a tools/call returned`,
  );

const startedTask = (task: TaskRecord, toolName: string, written: Promise<void>): StartedTask => ({
  taskId: task.taskId,
  toolName,
  cancel: new Cancellation(CANCEL_SETTLE_MS),
  answer: wireTask("task", task),
  written,
});

/** notifications/tasks: the task as tasks/get would answer it now (a notification has no resultType). */
export function taskNotification(task: TaskRecord): Record<string, unknown> {
  const { resultType: _, ...params } = wireTask("complete", task, true);
  return params;
}

/** A task as the wire shows it: the flat Task fields, and on tasks/get what its status carries. */
function wireTask(resultType: "task" | "complete", task: TaskRecord, detailed = false): Record<string, unknown> {
  // Built field by field: the answer is copied again on its way out, and a spread here made both slower.
  const out: Record<string, unknown> = {
    resultType,
    taskId: task.taskId,
    status: task.status,
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: task.ttlMs,
  };
  if (task.statusMessage !== undefined) out.statusMessage = task.statusMessage;
  if (task.pollIntervalMs !== undefined) out.pollIntervalMs = task.pollIntervalMs;
  if (!detailed) return out;
  if ((task.status === "completed" || task.status === "cancelled") && task.result) out.result = task.result;
  if (task.status === "failed" && task.error) out.error = task.error;
  if (task.status === "input_required" && task.inputRequests) out.inputRequests = task.inputRequests;
  if (!isTerminal(task.status) && task.progress) out.progress = task.progress;
  return out;
}

// Task ids: the time of creation (ms, base 36, fixed width: ids sort as they were made) and 16
// random bytes, drawn from a pool refilled 128 ids at a time (one call to the system's generator
// instead of one per task). Ids made one after another land on the same page of the store's
// primary key index; wholly random ones each touched a page of their own, and writing those pages
// cost a SQLite commit more than the rest of the task.
let idPool = Buffer.alloc(0);
let idAt = 0;
function newTaskId(): string {
  if (idAt + 16 > idPool.length) {
    idPool = randomBytes(16 * 128);
    idAt = 0;
  }
  idAt += 16;
  return Date.now().toString(36).padStart(9, "0") + idPool.toString("base64url", idAt - 16, idAt);
}
