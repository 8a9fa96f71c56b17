import {
  applyAnswers,
  applyCancel,
  applyChange,
  applyRenewal,
  expiresAt,
  hasLostWorker,
  isTerminal,
  settleLostWorker,
  type TaskChange,
  type TaskRecord,
} from "./task-record.js";
import type { TaskStore } from "./task-store.js";

/** How many ended tasks a store keeps in memory for gets, and how much of their JSON at most. */
const ENDED_KEPT = 1024;
const ENDED_CHARS = 4 * 1024 * 1024;
/** A larger task (a big result) is read from the table, as before. */
const ENDED_ONE_CHARS = 64 * 1024;

/** One change of a task by the shared rules; undefined writes nothing more. */
export type ChangeTask = (task: TaskRecord) => TaskRecord | undefined;

/**
 * A change as every database store applies it to the task it read (locked): the rule on the task
 * as it stands at `now` (failed once its worker is lost); `write` is what to store, if anything.
 */
export function changeRead(
  read: TaskRecord,
  now: Date,
  change: ChangeTask,
): { next: TaskRecord | undefined; write: TaskRecord | undefined } {
  const task = settleLostWorker(read, now);
  const next = change(task);
  const written = next ?? task;
  return { next, write: written === read ? undefined : written };
}

/**
 * What the SQLite and PostgreSQL stores share: each reads a task, and changes one in a transaction
 * of its own (`change`: lock, read it as it stands at `now`, failed once its worker is lost, apply
 * the rule, write); every method a client or a handler calls is built on those two.
 */
export abstract class DatabaseTaskStore implements TaskStore {
  /**
   * Tasks that ended through this store, by id, with when they expire: an ended task never
   * changes again, so a tasks/get here is answered without a read. The newest ENDED_KEPT only.
   */
  readonly #ended = new Map<string, { task: TaskRecord; expiresAt: number | undefined; chars: number }>();
  #endedChars = 0;
  /** Where the eviction of the oldest ended task goes on (see #oldestEnded). */
  #oldest: MapIterator<string> | undefined;
  /**
   * The length of the JSON each change wrote for a task it ended, set by the store inside its
   * transaction and taken once that has committed (what ended() is told).
   */
  protected readonly endedChars = new Map<string, number>();

  abstract create(task: TaskRecord, maxLive?: number): Promise<void>;
  abstract liveCount(owner: string, now?: Date): Promise<number>;
  abstract prune(now?: Date): Promise<number>;
  abstract close(): Promise<void>;
  /** The task as kept, without a lock; undefined when there is none or it expired. */
  protected abstract read(taskId: string, now: Date): Promise<TaskRecord | undefined>;
  /** The rows of `owner` among `taskIds` that have not expired, in one query. */
  protected abstract readMany(taskIds: readonly string[], owner: string, now: Date): Promise<TaskRecord[]>;
  /** The task after `change`, written in one transaction with the read (and a lost worker settled). */
  protected abstract change(
    taskId: string,
    owner: string | undefined,
    now: Date,
    change: ChangeTask,
  ): Promise<TaskRecord | undefined>;
  /** `change` of each task, all in one transaction: what each became (undefined: not found, or nothing). */
  protected abstract changeEach(
    taskIds: readonly string[],
    now: Date,
    change: ChangeTask,
  ): Promise<Map<string, TaskRecord | undefined>>;

  /**
   * Keeps `task` for gets when it has ended (it is written: this is called after the write);
   * `expires` when the caller has it at hand (parsing the date costs more than the rest).
   */
  protected ended(task: TaskRecord | undefined, chars: number | undefined, expires = task && expiresAt(task)): void {
    if (task === undefined || chars === undefined || chars > ENDED_ONE_CHARS || !isTerminal(task.status)) return;
    this.#forget(task.taskId);
    while (this.#ended.size >= ENDED_KEPT || this.#endedChars + chars > ENDED_CHARS) {
      const oldest = this.#oldestEnded();
      if (oldest === undefined) break;
      this.#forget(oldest);
    }
    this.#ended.set(task.taskId, { task, expiresAt: expires, chars });
    this.#endedChars += chars;
  }

  /**
   * The id kept longest, from one iterator that goes on from the last one taken: a new iterator
   * each time passed every entry deleted before it again (a Map keeps them until it is rebuilt),
   * about 500 at each eviction once the cache was full.
   */
  #oldestEnded(): string | undefined {
    let next = this.#oldest?.next();
    if (next === undefined || next.done === true) {
      this.#oldest = this.#ended.keys();
      next = this.#oldest.next();
    }
    return next.done === true ? undefined : next.value;
  }

  #forget(taskId: string): void {
    const entry = this.#ended.get(taskId);
    if (entry === undefined) return;
    this.#ended.delete(taskId);
    this.#endedChars -= entry.chars;
  }

  protected forgetEnded(): void {
    this.#ended.clear();
    this.#oldest = undefined;
    this.#endedChars = 0;
    this.endedChars.clear();
  }

  /** `change` for what it does, not for the task it leaves (a lost worker it settles is not kept). */
  #changeOnly(taskId: string, owner: string | undefined, now: Date, change: ChangeTask): Promise<unknown> {
    return this.#changeAndKeep(taskId, owner, now, change, () => undefined);
  }

  /** `change`, then the task kept for gets when the change ended it. */
  async #changeAndKeep(
    taskId: string,
    owner: string | undefined,
    now: Date,
    change: ChangeTask,
    pick: (next: TaskRecord | undefined) => TaskRecord | undefined = (next) => next,
  ): Promise<TaskRecord | undefined> {
    try {
      const next = await this.change(taskId, owner, now, change);
      this.ended(pick(next), this.endedChars.get(taskId));
      return next;
    } finally {
      this.endedChars.delete(taskId);
    }
  }

  async getMany(taskIds: readonly string[], owner: string, now = new Date()): Promise<TaskRecord[]> {
    const found: TaskRecord[] = [];
    const unread: string[] = [];
    for (const taskId of new Set(taskIds)) {
      if (!this.#ended.has(taskId)) unread.push(taskId);
      else {
        const task = await this.get(taskId, owner, now);
        if (task !== undefined) found.push(task);
      }
    }
    if (unread.length === 0) return found;
    for (const read of await this.readMany(unread, owner, now)) {
      // A task whose worker is lost is settled (failed) as get does; rare, so one at a time.
      const task = hasLostWorker(read, now.getTime()) ? await this.get(read.taskId, owner, now) : read;
      if (task !== undefined) found.push(task);
    }
    return found;
  }

  async get(taskId: string, owner: string, now = new Date()): Promise<TaskRecord | undefined> {
    const ended = this.#ended.get(taskId);
    if (ended !== undefined) {
      // Gone at the same moment as the row (its expires_at column holds the same time).
      if (ended.expiresAt !== undefined && now.getTime() >= ended.expiresAt) {
        this.#forget(taskId);
        return undefined;
      }
      return ended.task.owner === owner ? ended.task : undefined;
    }
    // A plain read; only a task whose worker is lost is written (failed), in a transaction.
    const read = await this.read(taskId, now);
    if (read === undefined || read.owner !== owner) return undefined;
    if (!hasLostWorker(read, now.getTime())) return read;
    let found: TaskRecord | undefined;
    // Failed now, and written so: kept like any other end.
    await this.#changeAndKeep(
      taskId,
      owner,
      now,
      (task) => {
        found = task;
        return undefined;
      },
      () => found,
    );
    return found;
  }

  update(taskId: string, change: TaskChange, now = new Date()): Promise<TaskRecord | undefined> {
    return this.#changeAndKeep(taskId, undefined, now, (task) => applyChange(task, change, now));
  }

  async answer(taskId: string, owner: string, responses: Record<string, unknown>, now = new Date()): Promise<boolean> {
    let found = false;
    await this.#changeOnly(taskId, owner, now, (task) => {
      found = true;
      return applyAnswers(task, responses, now);
    });
    return found;
  }

  async takeAnswers(taskId: string, now = new Date()): Promise<Record<string, unknown>> {
    // A handler waiting on a question asks often: only a task that holds answers is written.
    if ((await this.read(taskId, now))?.inputResponses === undefined) return {};
    let answers: Record<string, unknown> = {};
    await this.#changeOnly(taskId, undefined, now, (task) => {
      answers = task.inputResponses ?? {};
      if (task.inputResponses === undefined) return undefined;
      const next = { ...task };
      delete next.inputResponses;
      return next;
    });
    return answers;
  }

  async cancel(taskId: string, owner: string, now = new Date()): Promise<boolean> {
    let found = false;
    await this.#changeOnly(taskId, owner, now, (task) => {
      found = true;
      return applyCancel(task, now);
    });
    return found;
  }

  async renew(worker: string, taskIds: readonly string[], leaseUntil: number, now = new Date()): Promise<string[]> {
    // Every lease of this worker in one transaction: one commit a beat, however many tasks run.
    try {
      const renewed = await this.changeEach(taskIds, now, (task) => applyRenewal(task, worker, leaseUntil));
      return taskIds.filter((taskId) => renewed.get(taskId) === undefined);
    } finally {
      // A renewal that found its task lost wrote it failed: not kept here (the next get reads it).
      for (const taskId of taskIds) this.endedChars.delete(taskId);
    }
  }
}
