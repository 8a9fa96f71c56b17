import { type ChangeTask, changeRead, DatabaseTaskStore } from "./database-task-store.js";
import { isExpired, isTerminal, type TaskRecord, taskRow } from "./task-record.js";
import { TooManyTasksError } from "./task-store.js";

/** What of a PostgreSQL connection (a `pg` pool client) this store uses. */
export interface TaskPgQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

/** What of a PostgreSQL pool (`pg.Pool`, `createPgPool` of @toolshed/storage) this store uses. */
export interface TaskPgPool extends TaskPgQueryable {
  connect(): Promise<TaskPgQueryable & { release(): void }>;
}

const TABLE_SQL = `CREATE TABLE IF NOT EXISTS toolshed_tasks (
  task_id TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  status TEXT NOT NULL,
  expires_at BIGINT,
  lease_until BIGINT,
  data JSONB NOT NULL
);
CREATE INDEX IF NOT EXISTS toolshed_tasks_owner ON toolshed_tasks (owner, status);
CREATE INDEX IF NOT EXISTS toolshed_tasks_expiry ON toolshed_tasks (expires_at) WHERE expires_at IS NOT NULL`;

const INSERT_SQL =
  "INSERT INTO toolshed_tasks (task_id, owner, status, expires_at, lease_until, data) VALUES ($1, $2, $3, $4, $5, $6::jsonb)";

// The statuses of a task that has not ended, listed (not NOT IN the ended ones) so that the
// (owner, status) index finds them without reading the caller's ended tasks.
const LIVE_SQL = "('working', 'input_required')";

// A table made before lease_until was a column gets it, filled from the JSON of its live tasks.
const LEASE_COLUMN_SQL = `DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema()
    AND table_name = 'toolshed_tasks' AND column_name = 'lease_until') THEN
    ALTER TABLE toolshed_tasks ADD COLUMN lease_until BIGINT;
    UPDATE toolshed_tasks SET lease_until = (data->>'leaseUntil')::bigint WHERE status IN ${LIVE_SQL};
  END IF;
END $$`;

/**
 * Tasks in PostgreSQL, shared by every instance on the database: one row each, the whole task as
 * JSONB beside the columns the queries need. Every change locks the row (SELECT … FOR UPDATE), is
 * checked by the shared rules and written in the same transaction, so two instances cannot both
 * move a task. The table is made by `open` (in the pool's search_path).
 */
export class PostgresTaskStore extends DatabaseTaskStore {
  readonly #pool: TaskPgPool;

  private constructor(pool: TaskPgPool) {
    super();
    this.#pool = pool;
  }

  /** Makes the table when it is missing (instances starting together take turns), then the store. */
  static async open(pool: TaskPgPool): Promise<PostgresTaskStore> {
    await inTransaction(pool, async (client) => {
      await client.query("SELECT pg_advisory_xact_lock(hashtext('toolshed_tasks'))");
      await client.query(TABLE_SQL);
      await client.query(LEASE_COLUMN_SQL);
    });
    return new PostgresTaskStore(pool);
  }

  async create(task: TaskRecord, maxLive?: number): Promise<void> {
    const values = taskRow(task);
    if (maxLive === undefined) {
      await this.#pool.query(INSERT_SQL, values);
      return;
    }
    // The owner's creates take turns on every instance (a lock held to the commit), so the count
    // and the insert hold together.
    await inTransaction(this.#pool, async (client) => {
      await client.query("SELECT pg_advisory_xact_lock(hashtextextended('toolshed_tasks:' || $1, 0))", [task.owner]);
      if ((await this.#liveCountIn(client, task.owner, new Date())) >= maxLive) throw new TooManyTasksError(maxLive);
      await client.query(INSERT_SQL, values);
    });
  }

  async liveCount(owner: string, now = new Date()): Promise<number> {
    return this.#liveCountIn(this.#pool, owner, now);
  }

  async #liveCountIn(db: TaskPgQueryable, owner: string, now: Date): Promise<number> {
    // isLive in SQL: not ended, not expired, and its worker's lease (a column) not run out.
    const { rows } = await db.query(
      `SELECT COUNT(*) AS live FROM toolshed_tasks WHERE owner = $1 AND status IN ${LIVE_SQL} AND (expires_at IS NULL OR expires_at > $2) AND coalesce(lease_until >= $2, true)`,
      [owner, now.getTime()],
    );
    return Number((rows[0] as { live: string | number }).live);
  }

  async prune(now = new Date()): Promise<number> {
    const result = await this.#pool.query(
      "DELETE FROM toolshed_tasks WHERE expires_at IS NOT NULL AND expires_at <= $1",
      [now.getTime()],
    );
    return result.rowCount ?? 0;
  }

  /** The pool is the caller's (the packs' pool): it is not ended here. */
  async close(): Promise<void> {
    this.forgetEnded();
  }

  protected read(taskId: string, now: Date): Promise<TaskRecord | undefined> {
    return readTask(this.#pool, taskId, now, false);
  }

  protected async readMany(taskIds: readonly string[], owner: string, now: Date): Promise<TaskRecord[]> {
    const { rows } = await this.#pool.query(
      "SELECT data FROM toolshed_tasks WHERE owner = $1 AND task_id = ANY($2::text[]) AND (expires_at IS NULL OR expires_at > $3)",
      [owner, [...taskIds], now.getTime()],
    );
    return (rows as Array<{ data: TaskRecord }>).map((row) => row.data);
  }

  protected change(
    taskId: string,
    owner: string | undefined,
    now: Date,
    change: ChangeTask,
  ): Promise<TaskRecord | undefined> {
    return inTransaction(this.#pool, async (client) => {
      const read = await readTask(client, taskId, now, true);
      if (read === undefined || (owner !== undefined && read.owner !== owner)) return undefined;
      const { next, write } = changeRead(read, now, change);
      if (write) {
        const json = JSON.stringify(write);
        await client.query(
          "UPDATE toolshed_tasks SET status = $1, lease_until = $2, data = $3::jsonb WHERE task_id = $4",
          [write.status, write.leaseUntil ?? null, json, taskId],
        );
        if (isTerminal(write.status)) this.endedChars.set(taskId, json.length);
      }
      return next;
    });
  }

  protected changeEach(
    taskIds: readonly string[],
    now: Date,
    change: ChangeTask,
  ): Promise<Map<string, TaskRecord | undefined>> {
    return inTransaction(this.#pool, async (client) => {
      // Locked in one order, so two instances renewing overlapping tasks cannot deadlock.
      const { rows } = await client.query(
        "SELECT task_id, data FROM toolshed_tasks WHERE task_id = ANY($1::text[]) ORDER BY task_id FOR UPDATE",
        [[...taskIds]],
      );
      const changed = new Map<string, TaskRecord | undefined>();
      const writes: TaskRecord[] = [];
      for (const { task_id, data } of rows as Array<{ task_id: string; data: TaskRecord }>) {
        if (isExpired(data, now.getTime())) continue;
        const { next, write } = changeRead(data, now, change);
        if (write) writes.push(write);
        changed.set(task_id, next);
      }
      if (writes.length > 0) {
        await client.query(
          `UPDATE toolshed_tasks AS t SET status = u.status, lease_until = u.lease_until, data = u.data::jsonb
           FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[]) AS u(task_id, status, lease_until, data)
           WHERE t.task_id = u.task_id`,
          [
            writes.map((w) => w.taskId),
            writes.map((w) => w.status),
            writes.map((w) => w.leaseUntil ?? null),
            writes.map((w) => JSON.stringify(w)),
          ],
        );
      }
      return changed;
    });
  }
}

async function readTask(
  db: TaskPgQueryable,
  taskId: string,
  now: Date,
  lock: boolean,
): Promise<TaskRecord | undefined> {
  const { rows } = await db.query(`SELECT data FROM toolshed_tasks WHERE task_id = $1${lock ? " FOR UPDATE" : ""}`, [
    taskId,
  ]);
  const task = (rows[0] as { data: TaskRecord } | undefined)?.data;
  return task === undefined || isExpired(task, now.getTime()) ? undefined : task;
}

async function inTransaction<T>(pool: TaskPgPool, fn: (client: TaskPgQueryable) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await fn(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
