import { ERROR_META_KEY, toolErrorResult, UnavailableError } from "@toolshed/errors";

// A task of the io.modelcontextprotocol/tasks extension as every store keeps it, and the one set
// of rules for changing it, so the in-memory, SQLite and PostgreSQL stores cannot disagree.

export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

const TERMINAL: ReadonlySet<TaskStatus> = new Set(["completed", "failed", "cancelled"]);

export const isTerminal = (status: TaskStatus): boolean => TERMINAL.has(status);

/** A question the task waits on, as tasks/get shows it under `inputRequests`. */
export interface InputRequest {
  method: string;
  params?: Record<string, unknown>;
}

export interface TaskRecord {
  readonly taskId: string;
  /** Whose task it is (the caller's key; "" for an unauthenticated local caller): others see no task. */
  readonly owner: string;
  readonly toolName: string;
  status: TaskStatus;
  statusMessage?: string;
  /** ISO-8601. */
  readonly createdAt: string;
  lastUpdatedAt: string;
  /** How long after creation the task and its result are kept; null: until the server's own limit. */
  readonly ttlMs: number | null;
  pollIntervalMs?: number;
  /** The CallToolResult, once completed (a tool error too: `isError`). */
  result?: Record<string, unknown>;
  /** The JSON-RPC error, once failed. */
  error?: { code: number; message: string; data?: unknown };
  /** Questions still unanswered, by key (status input_required). */
  inputRequests?: Record<string, InputRequest>;
  /** Answers received and not yet taken by the task's handler, by key. */
  inputResponses?: Record<string, unknown>;
  progress?: { progress: number; total?: number; message?: string };
  /** Set by tasks/cancel; the handler's signal is aborted and the task ends cancelled. */
  cancelRequested?: boolean;
  /** The server process running the handler (TaskRunner's worker id). */
  worker?: string;
  /**
   * Until when (epoch ms) that process vouches for the task; it renews this while the handler runs.
   * A task still going after it has lost its worker (a crash, a kill): it is read as failed.
   */
  leaseUntil?: number;
}

/** What a change may set; `undefined` leaves a field as it is. */
export interface TaskChange {
  status?: TaskStatus;
  statusMessage?: string;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
  /** New questions (added to those pending); the task moves to input_required. */
  ask?: Record<string, InputRequest>;
  progress?: { progress: number; total?: number; message?: string };
  pollIntervalMs?: number;
}

const lost = new UnavailableError("the server running the task stopped before it ended; call the tool again");

/** Why a task whose worker stopped renewing it is failed: the class a client retries on (C9). */
export const WORKER_LOST: { code: number; message: string; data: Record<string, unknown> } = {
  code: -32603,
  message: lost.message,
  data: { [ERROR_META_KEY]: toolErrorResult("task", lost)._meta[ERROR_META_KEY] },
};

/** A task that has not ended but whose worker stopped renewing its lease. */
export function hasLostWorker(task: TaskRecord, now: number): boolean {
  return !isTerminal(task.status) && task.leaseUntil !== undefined && now > task.leaseUntil;
}

/** The task as it reads at `now`: failed (retryable) when its worker is gone, else as it is. */
export function settleLostWorker(task: TaskRecord, now: Date): TaskRecord {
  if (!hasLostWorker(task, now.getTime())) return task;
  const next = withoutLiveFields(task);
  next.status = "failed";
  next.statusMessage = WORKER_LOST.message;
  next.error = structuredClone(WORKER_LOST);
  next.lastUpdatedAt = isoTime(now);
  return next;
}

/** Whether a task counts against its caller's limit: not ended, not expired, its worker alive. */
export function isLive(task: TaskRecord, now: number): boolean {
  return !isTerminal(task.status) && !isExpired(task, now) && !hasLostWorker(task, now);
}

/**
 * The worker's heartbeat: its lease on a task it still runs is extended. Undefined when it should
 * stop running it (it ended, its cancel was asked for, or another worker holds it).
 */
export function applyRenewal(task: TaskRecord, worker: string, leaseUntil: number): TaskRecord | undefined {
  if (isTerminal(task.status) || task.cancelRequested || task.worker !== worker) return undefined;
  return { ...task, leaseUntil };
}

/** Which status may follow which: working and input_required alternate; a terminal status is final. */
export function canMove(from: TaskStatus, to: TaskStatus): boolean {
  if (isTerminal(from)) return false;
  return from !== to || !isTerminal(to);
}

// The last time written and read: tasks made and ended together share their millisecond, and
// making the text (or parsing it) cost more than the rest of a field's work.
let isoMs = Number.NaN;
let isoText = "";
let parsedText = "";
let parsedMs = Number.NaN;

/** `date` as ISO-8601 text (what a task's times hold). */
export function isoTime(date: Date): string {
  const ms = date.getTime();
  if (ms !== isoMs) {
    isoText = date.toISOString();
    isoMs = ms;
  }
  return isoText;
}

/** The moment after which a task is gone; undefined when it has no ttl. */
export function expiresAt(task: Pick<TaskRecord, "createdAt" | "ttlMs">): number | undefined {
  if (task.ttlMs === null) return undefined;
  if (task.createdAt !== parsedText) {
    parsedMs = Date.parse(task.createdAt);
    parsedText = task.createdAt;
  }
  return parsedMs + task.ttlMs;
}

/** A new task as a table row: task_id, owner, status, expires_at, lease_until, data (its JSON). */
export type TaskRow = [string, string, string, number | null, number | null, string];

/** The row both database stores insert for a new task. */
export function taskRow(task: TaskRecord): TaskRow {
  return [task.taskId, task.owner, task.status, expiresAt(task) ?? null, task.leaseUntil ?? null, JSON.stringify(task)];
}

export function isExpired(task: Pick<TaskRecord, "createdAt" | "ttlMs">, now: number): boolean {
  const end = expiresAt(task);
  return end !== undefined && now >= end;
}

/**
 * The task after `change`, or undefined when the change is not allowed (a terminal task never
 * changes again; a status moves only as canMove says). Pure: each store applies it inside its own
 * transaction.
 */
export function applyChange(task: TaskRecord, change: TaskChange, now: Date): TaskRecord | undefined {
  if (isTerminal(task.status)) return undefined;
  let status = change.status;
  if (change.ask !== undefined) status ??= "input_required";
  if (status !== undefined && !canMove(task.status, status)) return undefined;
  let next: TaskRecord;
  if (status !== undefined && isTerminal(status)) {
    next = withoutLiveFields(task);
    next.lastUpdatedAt = isoTime(now);
    next.status = status;
  } else {
    next = { ...task, lastUpdatedAt: isoTime(now) };
    if (change.ask !== undefined) next.inputRequests = { ...task.inputRequests, ...change.ask };
    if (status !== undefined) next.status = status;
  }
  if (change.statusMessage !== undefined) next.statusMessage = change.statusMessage;
  if (change.progress !== undefined) next.progress = change.progress;
  if (change.pollIntervalMs !== undefined) next.pollIntervalMs = change.pollIntervalMs;
  // A cancelled task keeps what its handler ended with (a partial batch says which items were applied).
  if ((next.status === "completed" || next.status === "cancelled") && change.result !== undefined) {
    next.result = change.result;
  }
  if (next.status === "failed" && change.error !== undefined) next.error = change.error;
  return next;
}

/** Which fields of a task an ended one keeps (1) and which only a running one has (0). */
export const ENDED_KEEPS = {
  taskId: 1,
  owner: 1,
  toolName: 1,
  status: 1,
  statusMessage: 1,
  createdAt: 1,
  lastUpdatedAt: 1,
  ttlMs: 1,
  pollIntervalMs: 1,
  result: 1,
  error: 1,
  progress: 1,
  cancelRequested: 1,
  worker: 1,
  inputRequests: 0,
  inputResponses: 0,
  leaseUntil: 0,
} as const satisfies Record<keyof TaskRecord, 0 | 1>;

/**
 * A new task without what only a running one has (questions, answers, lease), field by field as
 * ENDED_KEEPS lists them: not deleted (a deleted property can turn the object into a slow
 * dictionary), and not rest-and-spread, whose object took twice as long to make and to write as JSON.
 */
function withoutLiveFields(task: TaskRecord): TaskRecord {
  const next: TaskRecord = {
    taskId: task.taskId,
    owner: task.owner,
    toolName: task.toolName,
    status: task.status,
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: task.ttlMs,
  };
  if (task.statusMessage !== undefined) next.statusMessage = task.statusMessage;
  if (task.pollIntervalMs !== undefined) next.pollIntervalMs = task.pollIntervalMs;
  if (task.result !== undefined) next.result = task.result;
  if (task.error !== undefined) next.error = task.error;
  if (task.progress !== undefined) next.progress = task.progress;
  if (task.cancelRequested !== undefined) next.cancelRequested = task.cancelRequested;
  if (task.worker !== undefined) next.worker = task.worker;
  return next;
}

/**
 * tasks/update: answers for keys still pending are kept for the handler and their questions
 * removed; answers for unknown or already answered keys are ignored. When no question is left the
 * task is working again. Undefined when the task is terminal (nothing to answer).
 */
export function applyAnswers(task: TaskRecord, responses: Record<string, unknown>, now: Date): TaskRecord | undefined {
  if (isTerminal(task.status)) return undefined;
  const pending = { ...task.inputRequests };
  const received = { ...task.inputResponses };
  let taken = 0;
  for (const [key, value] of Object.entries(responses)) {
    if (!Object.hasOwn(pending, key)) continue;
    delete pending[key];
    received[key] = value;
    taken++;
  }
  if (taken === 0) return task;
  const next: TaskRecord = { ...task, lastUpdatedAt: isoTime(now), inputResponses: received };
  if (Object.keys(pending).length === 0) {
    delete next.inputRequests;
    if (next.status === "input_required") next.status = "working";
  } else {
    next.inputRequests = pending;
  }
  return next;
}

/** tasks/cancel: marks the request; the handler ends the task (cancelled). A terminal task is left as it is. */
export function applyCancel(task: TaskRecord, now: Date): TaskRecord {
  if (isTerminal(task.status) || task.cancelRequested) return task;
  return { ...task, cancelRequested: true, lastUpdatedAt: isoTime(now) };
}
