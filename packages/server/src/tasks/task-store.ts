import { brandErrorClass } from "@toolshed/errors/internal";
import {
  applyAnswers,
  applyCancel,
  applyChange,
  applyRenewal,
  isExpired,
  isLive,
  isTerminal,
  settleLostWorker,
  type TaskChange,
  type TaskRecord,
} from "./task-record.js";

/**
 * Where tasks live. Every store applies the same rules (task-record.ts); a durable one (SQLite,
 * PostgreSQL) lets any instance answer for a task another created. `owner` is checked on every
 * read and write that a client asks for: another caller's task is unknown to it.
 */
export interface TaskStore {
  /**
   * Keeps a new task; resolves once a get for it would find it (the CreateTaskResult waits for
   * this). With `maxLive`, a store shared by several instances (PostgreSQL) counts the owner's live
   * tasks and inserts in one step and rejects with TooManyTasksError at the limit, so calls made
   * together on any instances cannot pass it; the caller also asks liveCount first.
   */
  create(task: TaskRecord, maxLive?: number): Promise<void>;
  /** The caller's task; undefined when there is none, it expired, or it is another caller's. */
  get(taskId: string, owner: string, now?: Date): Promise<TaskRecord | undefined>;
  /**
   * The caller's tasks among `taskIds` (unknown, expired and other callers' ones left out), read
   * together: one query for a durable store. A store without it is read one id at a time.
   */
  getMany?(taskIds: readonly string[], owner: string, now?: Date): Promise<TaskRecord[]>;
  /** A change by the task's handler; the task after it, or undefined when it was not allowed or the task is gone. */
  update(taskId: string, change: TaskChange, now?: Date): Promise<TaskRecord | undefined>;
  /**
   * `update` of a task whose create is still waiting to be written: the change is written with it,
   * settling when both are. Undefined when the task is not waiting (call `update` once its create
   * resolved). A store that writes each create at once has no such wait and need not have this.
   */
  updateUnwritten?(taskId: string, change: TaskChange, now?: Date): Promise<TaskRecord | undefined> | undefined;
  /** tasks/update; false when the caller has no such task. */
  answer(taskId: string, owner: string, responses: Record<string, unknown>, now?: Date): Promise<boolean>;
  /** The answers received since the handler last took them (and forgets them). */
  takeAnswers(taskId: string, now?: Date): Promise<Record<string, unknown>>;
  /** tasks/cancel; false when the caller has no such task. */
  cancel(taskId: string, owner: string, now?: Date): Promise<boolean>;
  /** The caller's tasks that have not ended (nor lost their worker). */
  liveCount(owner: string, now?: Date): Promise<number>;
  /**
   * A worker's heartbeat: extends its lease on each of `taskIds` it still runs, until `leaseUntil`
   * (epoch ms). Answers the ids whose handler should stop: cancel asked for (perhaps on another
   * instance), ended, gone, or held by another worker.
   */
  renew(worker: string, taskIds: readonly string[], leaseUntil: number, now?: Date): Promise<string[]>;
  /** Removes expired tasks; how many. */
  prune(now?: Date): Promise<number>;
  close(): Promise<void>;
}

const copy = (task: TaskRecord): TaskRecord => structuredClone(task);

/** A new task refused because its owner has `limit` tasks running (see TaskStore.create). */
export class TooManyTasksError extends Error {
  override name = "TooManyTasksError";
  constructor(readonly limit: number) {
    super(`this caller has ${limit} tasks running`);
  }
}
brandErrorClass(TooManyTasksError, "TooManyTasksError");

/** Tasks in this process only: for tests, stdio and a server without a database. */
export class MemoryTaskStore implements TaskStore {
  readonly #tasks = new Map<string, TaskRecord>();
  /** Each owner's tasks that have not ended, by id: a count reads these, not every task kept. */
  readonly #open = new Map<string, Set<string>>();

  async create(task: TaskRecord, maxLive?: number): Promise<void> {
    if (this.#tasks.has(task.taskId)) throw new Error(`task ${task.taskId} exists already`);
    if (maxLive !== undefined && this.#liveCount(task.owner, new Date()) >= maxLive)
      throw new TooManyTasksError(maxLive);
    this.#put(copy(task));
  }

  /** Keeps `task` as it now stands, and whether it is open. */
  #put(task: TaskRecord): void {
    this.#tasks.set(task.taskId, task);
    if (isTerminal(task.status)) this.#close(task);
    else {
      const open = this.#open.get(task.owner);
      if (open === undefined) this.#open.set(task.owner, new Set([task.taskId]));
      else open.add(task.taskId);
    }
  }

  #close(task: TaskRecord): void {
    const open = this.#open.get(task.owner);
    if (open?.delete(task.taskId) && open.size === 0) this.#open.delete(task.owner);
  }

  #delete(task: TaskRecord): void {
    this.#tasks.delete(task.taskId);
    this.#close(task);
  }

  async get(taskId: string, owner: string, now = new Date()): Promise<TaskRecord | undefined> {
    const task = this.#live(taskId, now);
    return task && task.owner === owner ? copy(task) : undefined;
  }

  async getMany(taskIds: readonly string[], owner: string, now = new Date()): Promise<TaskRecord[]> {
    const found: TaskRecord[] = [];
    for (const taskId of new Set(taskIds)) {
      const task = this.#live(taskId, now);
      if (task !== undefined && task.owner === owner) found.push(copy(task));
    }
    return found;
  }

  async update(taskId: string, change: TaskChange, now = new Date()): Promise<TaskRecord | undefined> {
    const task = this.#live(taskId, now);
    const next = task && applyChange(task, change, now);
    if (next === undefined) return undefined;
    this.#put(next);
    return copy(next);
  }

  async answer(taskId: string, owner: string, responses: Record<string, unknown>, now = new Date()): Promise<boolean> {
    const task = this.#live(taskId, now);
    if (task === undefined || task.owner !== owner) return false;
    const next = applyAnswers(task, responses, now);
    if (next !== undefined) this.#put(next);
    return true;
  }

  async takeAnswers(taskId: string, now = new Date()): Promise<Record<string, unknown>> {
    const task = this.#live(taskId, now);
    const answers = task?.inputResponses ?? {};
    if (task) delete task.inputResponses;
    return answers;
  }

  async cancel(taskId: string, owner: string, now = new Date()): Promise<boolean> {
    const task = this.#live(taskId, now);
    if (task === undefined || task.owner !== owner) return false;
    this.#put(applyCancel(task, now));
    return true;
  }

  async liveCount(owner: string, now = new Date()): Promise<number> {
    return this.#liveCount(owner, now);
  }

  #liveCount(owner: string, now: Date): number {
    let count = 0;
    for (const taskId of this.#open.get(owner) ?? []) {
      const task = this.#tasks.get(taskId);
      if (task !== undefined && isLive(task, now.getTime())) count++;
    }
    return count;
  }

  async renew(worker: string, taskIds: readonly string[], leaseUntil: number, now = new Date()): Promise<string[]> {
    const stop: string[] = [];
    for (const taskId of taskIds) {
      const task = this.#live(taskId, now);
      const next = task && applyRenewal(task, worker, leaseUntil);
      if (next === undefined) stop.push(taskId);
      else this.#put(next);
    }
    return stop;
  }

  async prune(now = new Date()): Promise<number> {
    let removed = 0;
    for (const task of this.#tasks.values()) {
      if (isExpired(task, now.getTime())) {
        this.#delete(task);
        removed++;
      }
    }
    return removed;
  }

  async close(): Promise<void> {
    this.#tasks.clear();
    this.#open.clear();
  }

  /** The task as it stands at `now`: gone once expired, failed once its worker is lost. */
  #live(taskId: string, now: Date): TaskRecord | undefined {
    const task = this.#tasks.get(taskId);
    if (task === undefined) return undefined;
    if (isExpired(task, now.getTime())) {
      this.#delete(task);
      return undefined;
    }
    const settled = settleLostWorker(task, now);
    if (settled !== task) this.#put(settled);
    return settled;
  }
}
