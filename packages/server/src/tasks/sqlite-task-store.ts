import { type ChangeTask, changeRead, DatabaseTaskStore } from "./database-task-store.js";
import {
  applyChange,
  isLive,
  isTerminal,
  type TaskChange,
  type TaskRecord,
  type TaskRow,
  taskRow,
} from "./task-record.js";

/** A group write of fewer tasks than this waits one more turn of the event loop for others. */
const GROUP_WAITS_BELOW = 32;

/** A task waiting for the group write, with its caller's promise. */
interface Unwritten {
  task: TaskRecord;
  done: () => void;
  failed: (error: unknown) => void;
  written: Promise<void>;
}

type Statement = ReturnType<TaskSqlite["prepare"]>;

/** A task as inserted: id, owner, status, expires_at, lease_until, its JSON. */

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

// The statuses of a task that has not ended, listed (not NOT IN the ended ones) so that the live
// index serves the count of a caller's live tasks.
const LIVE_SQL = "('working', 'input_required')";

// The caller index holds live tasks only: a task that ends before its write (most quick ones) adds
// no entry, so its commit writes one page fewer. It replaced an index of every task
// (toolshed_tasks_owner), dropped once this one is there.
const TABLE_SQL = `CREATE TABLE IF NOT EXISTS toolshed_tasks (
  task_id TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  status TEXT NOT NULL,
  expires_at INTEGER,
  lease_until INTEGER,
  data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS toolshed_tasks_live ON toolshed_tasks (owner, status) WHERE status IN ${LIVE_SQL};
DROP INDEX IF EXISTS toolshed_tasks_owner;
CREATE INDEX IF NOT EXISTS toolshed_tasks_expiry ON toolshed_tasks (expires_at) WHERE expires_at IS NOT NULL;`;

/**
 * A table made before lease_until was a column gets it, filled from the JSON of its live tasks
 * (the only ones whose lease is read), in one IMMEDIATE transaction: two processes opening the
 * file together cannot both add it.
 */
function addLeaseColumn(db: TaskSqlite): void {
  const hasLease = () =>
    (db.prepare("PRAGMA table_info(toolshed_tasks)").all() as Array<{ name: string }>).some(
      (c) => c.name === "lease_until",
    );
  if (hasLease()) return;
  db.transaction(() => {
    if (hasLease()) return;
    db.exec("ALTER TABLE toolshed_tasks ADD COLUMN lease_until INTEGER");
    db.exec(`UPDATE toolshed_tasks SET lease_until = json_extract(data, '$.leaseUntil') WHERE status IN ${LIVE_SQL}`);
  }).immediate();
}

/**
 * Tasks in the SQLite file the server already uses: one row each, the whole task as JSON beside the
 * columns the queries need. Every change is read, checked by the shared rules and written in one
 * IMMEDIATE transaction, so two processes on one file cannot both move a task.
 */
export class SqliteTaskStore extends DatabaseTaskStore {
  // Prepared once: a statement prepared per call costs about a third of a small write.
  readonly #insert: Statement;
  readonly #select: Statement;
  readonly #selectMany: Statement;
  readonly #write: Statement;
  readonly #live: Statement;
  readonly #prune: Statement;
  readonly #changeOne: { immediate(...args: unknown[]): unknown };
  readonly #changeEach: { immediate(...args: unknown[]): unknown };
  readonly #insertMany: { immediate(rows: TaskRow[]): void };
  /** Tasks waiting for the next group write, with how to settle each caller. */
  #pending: Unwritten[] = [];
  #scheduled = false;
  /** Whether the scheduled group write has waited its one turn already. */
  #waited = false;
  /** The same by id (the first of an id: a second create of it fails in the write). */
  #unwritten = new Map<string, Unwritten>();
  /** Callers' live tasks as read in the millisecond #countedAt (with the tasks written here since). */
  #counted = new Map<string, number>();
  #countedAt = Number.NaN;

  constructor(db: TaskSqlite) {
    super();
    db.exec(TABLE_SQL);
    addLeaseColumn(db);
    this.#insert = db.prepare(
      "INSERT INTO toolshed_tasks (task_id, owner, status, expires_at, lease_until, data) VALUES (?, ?, ?, ?, ?, ?)",
    );
    this.#insertMany = db.transaction((rows: TaskRow[]) => {
      for (const row of rows) this.#insert.run(...row);
    }) as unknown as { immediate(rows: TaskRow[]): void };
    this.#select = db.prepare("SELECT data, expires_at FROM toolshed_tasks WHERE task_id = ?");
    this.#selectMany = db.prepare(
      "SELECT data FROM toolshed_tasks WHERE owner = ? AND task_id IN (SELECT value FROM json_each(?)) AND (expires_at IS NULL OR expires_at > ?)",
    );
    this.#write = db.prepare("UPDATE toolshed_tasks SET status = ?, lease_until = ?, data = ? WHERE task_id = ?");
    // isLive in SQL: not ended, not expired, and its worker's lease not run out. The lease is a
    // column: read from each live task's JSON, it cost a parse per task on every create.
    this.#live = db.prepare(
      `SELECT COUNT(*) AS live FROM toolshed_tasks WHERE owner = ? AND status IN ${LIVE_SQL} AND (expires_at IS NULL OR expires_at > ?) AND coalesce(lease_until >= ?, 1)`,
    );
    this.#prune = db.prepare("DELETE FROM toolshed_tasks WHERE expires_at IS NOT NULL AND expires_at <= ?");
    this.#changeOne = db.transaction(
      (taskId: string, owner: string | undefined, now: Date, change: ChangeTask): TaskRecord | undefined =>
        this.#changeRow(taskId, owner, now, change),
    ) as unknown as { immediate(...args: unknown[]): unknown };
    this.#changeEach = db.transaction((taskIds: readonly string[], now: Date, change: ChangeTask) => {
      const changed = new Map<string, TaskRecord | undefined>();
      for (const taskId of taskIds) changed.set(taskId, this.#changeRow(taskId, undefined, now, change));
      return changed;
    }) as unknown as { immediate(...args: unknown[]): unknown };
  }

  /** Inside a transaction: read, settle a lost worker, apply the rule, write what changed. */
  #changeRow(taskId: string, owner: string | undefined, now: Date, change: ChangeTask): TaskRecord | undefined {
    const read = this.#read(taskId, now);
    if (read === undefined || (owner !== undefined && read.owner !== owner)) return undefined;
    const { next, write } = changeRead(read, now, change);
    if (write) {
      this.#counted.clear();
      const json = JSON.stringify(write);
      this.#write.run(write.status, write.leaseUntil ?? null, json, taskId);
      if (isTerminal(write.status)) this.endedChars.set(taskId, json.length);
    }
    return next;
  }

  /**
   * Kept when this resolves. Tasks created in one turn of the event loop are written in one
   * transaction: a commit costs far more than a row, and under load many arrive together. The
   * live-task limit is held by liveCount, which counts the tasks waiting here for their write.
   */
  create(task: TaskRecord): Promise<void> {
    let done: () => void = () => {};
    let failed: (error: unknown) => void = () => {};
    const written = new Promise<void>((resolve, reject) => {
      done = resolve;
      failed = reject;
    });
    const entry: Unwritten = { task, done, failed, written };
    this.#schedule();
    this.#pending.push(entry);
    if (!this.#unwritten.has(task.taskId)) this.#unwritten.set(task.taskId, entry);
    return written;
  }

  updateUnwritten(taskId: string, change: TaskChange, now = new Date()): Promise<TaskRecord | undefined> | undefined {
    const entry = this.#unwritten.get(taskId);
    if (entry === undefined) return undefined;
    const next = applyChange(entry.task, change, now);
    if (next !== undefined) entry.task = next;
    return entry.written.then(() => next);
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(this.#flushSoon);
  }

  /**
   * A small group waits one more turn of the event loop before it is written: under load, the
   * tasks of the requests read in that turn join it (a commit costs more than a row); with nothing
   * else to do, a turn takes microseconds.
   */
  readonly #flushSoon = (): void => {
    if (!this.#waited && this.#pending.length < GROUP_WAITS_BELOW) {
      this.#waited = true;
      setImmediate(this.#flushSoon);
      return;
    }
    this.#waited = false;
    this.#flush();
  };

  #flush(): void {
    this.#scheduled = false;
    const batch = this.#pending;
    this.#pending = [];
    this.#unwritten = new Map();
    if (batch.length === 0) return;
    const rows = batch.map(({ task }) => taskRow(task));
    // A quick task ends before its group write: its first get needs no read.
    const kept = (task: TaskRecord, row: TaskRow) => this.ended(task, row[5].length, row[3] ?? undefined);
    try {
      this.#insertMany.immediate(rows);
    } catch {
      // One bad row (or a busy file) fails the group: each is tried alone, so that only its own caller fails.
      batch.forEach(({ task, done, failed }, i) => {
        const row = rows[i] as TaskRow;
        try {
          this.#insert.run(...row);
          kept(task, row);
          done();
        } catch (error) {
          failed(error);
        }
      });
      this.#counted.clear();
      return;
    }
    batch.forEach(({ task, done }, i) => {
      // Counts read before this write go on without another read: its live tasks are added.
      const counted = this.#counted.get(task.owner);
      if (counted !== undefined && isLive(task, this.#countedAt)) this.#counted.set(task.owner, counted + 1);
      kept(task, rows[i] as TaskRow);
      done();
    });
  }

  /**
   * Counted at once from the live index, with the caller's tasks still waiting for their group
   * write. A count answered inside the next group write made each create wait for two, and a
   * commit held half as many tasks. A read on its own costs a read transaction, so a caller's
   * count is read once a millisecond (the tasks created here are added as they are written; any
   * other change here reads again): what another process on the file writes within that
   * millisecond is not seen until the next.
   */
  async liveCount(owner: string, now = new Date()): Promise<number> {
    const at = now.getTime();
    // Only this millisecond's counts are kept: however many callers there are, the map stays small.
    if (at !== this.#countedAt) {
      this.#counted.clear();
      this.#countedAt = at;
    }
    let live = this.#counted.get(owner);
    if (live === undefined) {
      live = Number((this.#live.get(owner, at, at) as { live: number | bigint }).live);
      this.#counted.set(owner, live);
    }
    for (const entry of this.#pending) {
      // A second create of an id fails in the write: not counted.
      if (entry.task.owner === owner && isLive(entry.task, at) && this.#unwritten.get(entry.task.taskId) === entry)
        live++;
    }
    return live;
  }

  async prune(now = new Date()): Promise<number> {
    const result = this.#prune.run(now.getTime()) as { changes: number };
    this.#counted.clear();
    return result.changes;
  }

  async close(): Promise<void> {
    // Tasks still waiting for their group write are written before the file can be closed.
    if (this.#pending.length > 0) this.#flush();
    this.forgetEnded();
  }

  protected async read(taskId: string, now: Date): Promise<TaskRecord | undefined> {
    return this.#read(taskId, now);
  }

  protected async readMany(taskIds: readonly string[], owner: string, now: Date): Promise<TaskRecord[]> {
    const rows = this.#selectMany.all(owner, JSON.stringify(taskIds), now.getTime()) as Array<{ data: string }>;
    return rows.map((row) => JSON.parse(row.data) as TaskRecord);
  }

  protected async change(
    taskId: string,
    owner: string | undefined,
    now: Date,
    change: ChangeTask,
  ): Promise<TaskRecord | undefined> {
    return this.#changeOne.immediate(taskId, owner, now, change) as TaskRecord | undefined;
  }

  protected async changeEach(
    taskIds: readonly string[],
    now: Date,
    change: ChangeTask,
  ): Promise<Map<string, TaskRecord | undefined>> {
    return this.#changeEach.immediate(taskIds, now, change) as Map<string, TaskRecord | undefined>;
  }

  #read(taskId: string, now: Date): TaskRecord | undefined {
    const row = this.#select.get(taskId) as { data: string; expires_at: number | bigint | null } | undefined;
    // Expired by its column, as prune reads it (no date to parse from the JSON).
    if (row === undefined || (row.expires_at !== null && now.getTime() >= Number(row.expires_at))) return undefined;
    return JSON.parse(row.data) as TaskRecord;
  }
}
