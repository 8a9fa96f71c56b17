import {
  applyAnswers,
  applyCancel,
  applyChange,
  applyRenewal,
  expiresAt,
  hasLostWorker,
  isExpired,
  isLive,
  settleLostWorker,
  type TaskChange,
  type TaskRecord,
} from "./task-record.js";
import type { TaskStore } from "./task-store.js";

type Statement = ReturnType<TaskSqlite["prepare"]>;

/** The part of an SQLite connection (`openSqlite` of @toolshed/storage, either driver) this store uses. */
export interface TaskSqlite {
  exec(sql: string): unknown;
  prepare(sql: string): {
    run(...params: unknown[]): unknown;
    get(...params: unknown[]): unknown;
    all(...params: unknown[]): unknown[];
  };
  transaction<F extends (...args: never[]) => unknown>(fn: F): { immediate(...args: Parameters<F>): ReturnType<F> };
}

const TABLE_SQL = `CREATE TABLE IF NOT EXISTS toolshed_tasks (
  task_id TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  status TEXT NOT NULL,
  expires_at INTEGER,
  data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS toolshed_tasks_owner ON toolshed_tasks (owner, status);
CREATE INDEX IF NOT EXISTS toolshed_tasks_expiry ON toolshed_tasks (expires_at) WHERE expires_at IS NOT NULL;`;

// The statuses of a task that has not ended, listed (not NOT IN the ended ones) so that the
// (owner, status) index finds them without reading the caller's ended tasks.
const LIVE_SQL = "('working', 'input_required')";

/**
 * Tasks in the SQLite file the server already uses: one row each, the whole task as JSON beside the
 * columns the queries need. Every change is read, checked by the shared rules and written in one
 * IMMEDIATE transaction, so two processes on one file cannot both move a task.
 */
export class SqliteTaskStore implements TaskStore {
  // Prepared once: a statement prepared per call costs about a third of a small write.
  readonly #insert: Statement;
  readonly #select: Statement;
  readonly #write: Statement;
  readonly #live: Statement;
  readonly #prune: Statement;
  readonly #changeOne: { immediate(...args: unknown[]): unknown };

  constructor(db: TaskSqlite) {
    db.exec(TABLE_SQL);
    this.#insert = db.prepare(
      "INSERT INTO toolshed_tasks (task_id, owner, status, expires_at, data) VALUES (?, ?, ?, ?, ?)",
    );
    this.#select = db.prepare("SELECT data FROM toolshed_tasks WHERE task_id = ?");
    this.#write = db.prepare("UPDATE toolshed_tasks SET status = ?, data = ? WHERE task_id = ?");
    this.#live = db.prepare(
      `SELECT data FROM toolshed_tasks WHERE owner = ? AND status IN ${LIVE_SQL} AND (expires_at IS NULL OR expires_at > ?)`,
    );
    this.#prune = db.prepare("DELETE FROM toolshed_tasks WHERE expires_at IS NOT NULL AND expires_at <= ?");
    this.#changeOne = db.transaction(
      (
        taskId: string,
        owner: string | undefined,
        now: Date,
        change: (task: TaskRecord) => TaskRecord | undefined,
      ): TaskRecord | undefined => {
        const read = this.#read(taskId, now);
        if (read === undefined || (owner !== undefined && read.owner !== owner)) return undefined;
        const task = settleLostWorker(read, now);
        const next = change(task);
        const written = next ?? task;
        if (written !== read) this.#write.run(written.status, JSON.stringify(written), taskId);
        return next;
      },
    ) as unknown as { immediate(...args: unknown[]): unknown };
  }

  async create(task: TaskRecord): Promise<void> {
    this.#insert.run(task.taskId, task.owner, task.status, expiresAt(task) ?? null, JSON.stringify(task));
  }

  async get(taskId: string, owner: string, now = new Date()): Promise<TaskRecord | undefined> {
    // A plain read; only a task whose worker is lost is written (failed), in a transaction.
    const read = this.#read(taskId, now);
    if (read === undefined || read.owner !== owner) return undefined;
    if (!hasLostWorker(read, now.getTime())) return read;
    let found: TaskRecord | undefined;
    this.#change(taskId, owner, now, (task) => {
      found = task;
      return undefined;
    });
    return found;
  }

  async update(taskId: string, change: TaskChange, now = new Date()): Promise<TaskRecord | undefined> {
    return this.#change(taskId, undefined, now, (task) => applyChange(task, change, now));
  }

  async answer(taskId: string, owner: string, responses: Record<string, unknown>, now = new Date()): Promise<boolean> {
    let found = false;
    this.#change(taskId, owner, now, (task) => {
      found = true;
      return applyAnswers(task, responses, now);
    });
    return found;
  }

  async takeAnswers(taskId: string, now = new Date()): Promise<Record<string, unknown>> {
    let answers: Record<string, unknown> = {};
    this.#change(taskId, undefined, now, (task) => {
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
    this.#change(taskId, owner, now, (task) => {
      found = true;
      return applyCancel(task, now);
    });
    return found;
  }

  async liveCount(owner: string, now = new Date()): Promise<number> {
    // Few rows (a caller's unfinished tasks, capped): their leases are read from the task itself.
    const rows = this.#live.all(owner, now.getTime()) as Array<{ data: string }>;
    return rows.filter((row) => isLive(JSON.parse(row.data) as TaskRecord, now.getTime())).length;
  }

  async renew(worker: string, taskIds: readonly string[], leaseUntil: number, now = new Date()): Promise<string[]> {
    const stop: string[] = [];
    for (const taskId of taskIds) {
      let held = false;
      this.#change(taskId, undefined, now, (task) => {
        const next = applyRenewal(task, worker, leaseUntil);
        held = next !== undefined;
        return next;
      });
      if (!held) stop.push(taskId);
    }
    return stop;
  }

  async prune(now = new Date()): Promise<number> {
    const result = this.#prune.run(now.getTime()) as { changes: number };
    return result.changes;
  }

  async close(): Promise<void> {}

  #read(taskId: string, now: Date): TaskRecord | undefined {
    const row = this.#select.get(taskId) as { data: string } | undefined;
    if (row === undefined) return undefined;
    const task = JSON.parse(row.data) as TaskRecord;
    return isExpired(task, now.getTime()) ? undefined : task;
  }

  /**
   * Reads, changes and writes one task in a transaction, as it stands at `now` (failed once its
   * worker is lost); `change` returning undefined writes nothing more.
   */
  #change(
    taskId: string,
    owner: string | undefined,
    now: Date,
    change: (task: TaskRecord) => TaskRecord | undefined,
  ): TaskRecord | undefined {
    return this.#changeOne.immediate(taskId, owner, now, change) as TaskRecord | undefined;
  }
}
