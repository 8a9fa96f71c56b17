import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqlite } from "@toolshed/storage";
import { createTestSchema, pgReachable, TEST_DATABASE_URL, type TestSchema } from "@toolshed/storage/postgres";
import { afterAll, describe, expect, it } from "vitest";
import { PostgresTaskStore } from "./postgres-task-store.js";
import { SqliteTaskStore, type TaskSqlite } from "./sqlite-task-store.js";
import { type TaskRecord, WORKER_LOST } from "./task-record.js";
import { MemoryTaskStore, type TaskStore, TooManyTasksError } from "./task-store.js";

const T0 = new Date("2026-12-06T12:00:00.000Z");
const at = (ms: number) => new Date(T0.getTime() + ms);

function task(id: string, owner = "alice", ttlMs: number | null = 60_000): TaskRecord {
  return {
    taskId: id,
    owner,
    toolName: "slow_compute",
    status: "working",
    createdAt: T0.toISOString(),
    lastUpdatedAt: T0.toISOString(),
    ttlMs,
  };
}

/** What every task store does, whatever keeps the tasks. */
export function describeTaskStore(name: string, open: () => Promise<TaskStore>) {
  describe(name, () => {
    it("finds a task for its owner only", async () => {
      const store = await open();
      await store.create(task("t1"));
      expect((await store.get("t1", "alice", at(1)))?.status).toBe("working");
      expect(await store.get("t1", "mallory", at(1))).toBeUndefined();
      expect(await store.get("nope", "alice", at(1))).toBeUndefined();
      expect(await store.answer("t1", "mallory", { k: 1 }, at(1))).toBe(false);
      expect(await store.cancel("t1", "mallory", at(1))).toBe(false);
      await store.close();
    });

    it("keeps every task of creates made together; a taken id fails only its own create", async () => {
      const store = await open();
      await store.create(task("first"));
      const ids = Array.from({ length: 20 }, (_, i) => `t${i}`);
      const outcomes = await Promise.allSettled([
        ...ids.map((id) => store.create(task(id))),
        store.create(task("first", "mallory")),
      ]);
      expect(outcomes.slice(0, 20).every((o) => o.status === "fulfilled")).toBe(true);
      expect(outcomes[20]?.status).toBe("rejected");
      for (const id of ids) expect((await store.get(id, "alice", at(1)))?.status).toBe("working");
      expect((await store.get("first", "alice", at(1)))?.owner).toBe("alice");
      expect(await store.liveCount("alice", at(1))).toBe(21);
      await store.close();
    });

    it("reads the owner's tasks among many ids at once: unknown, expired and other callers' ones left out (issue 58.5)", async () => {
      const store = await open();
      await store.create(task("mine"));
      await store.create(task("short", "alice", 10));
      await store.create(task("theirs", "mallory"));
      const unknown = Array.from({ length: 1_000 }, (_, i) => `unknown-${i}`);
      const found = await store.getMany?.(["mine", "short", "theirs", "mine", ...unknown], "alice", at(100));
      expect(found?.map((t) => t.taskId)).toEqual(["mine"]);
      await store.close();
    });

    it("parks on questions and goes on once every one is answered; the handler takes the answers once", async () => {
      const store = await open();
      await store.create(task("t2"));
      const asked = await store.update(
        "t2",
        { ask: { a: { method: "elicitation/create" }, b: { method: "elicitation/create" } } },
        at(10),
      );
      expect(asked).toMatchObject({ status: "input_required", lastUpdatedAt: at(10).toISOString() });
      expect(await store.answer("t2", "alice", { a: { action: "accept" }, zzz: 1 }, at(20))).toBe(true);
      const half = await store.get("t2", "alice", at(21));
      expect(half?.status).toBe("input_required");
      expect(Object.keys(half?.inputRequests ?? {})).toEqual(["b"]);
      // An answer for a key already answered is ignored.
      await store.answer("t2", "alice", { a: "again", b: { action: "decline" } }, at(30));
      const done = await store.get("t2", "alice", at(31));
      expect(done?.status).toBe("working");
      expect(done?.inputRequests).toBeUndefined();
      expect(await store.takeAnswers("t2", at(32))).toEqual({ a: { action: "accept" }, b: { action: "decline" } });
      expect(await store.takeAnswers("t2", at(33))).toEqual({});
      await store.close();
    });

    it("ends once: completed with its result, failed with its error, and never changes after", async () => {
      const store = await open();
      await store.create(task("ok"));
      await store.create(task("bad"));
      const result = { content: [{ type: "text", text: "done" }], isError: false };
      expect((await store.update("ok", { status: "completed", result }, at(5)))?.result).toEqual(result);
      expect(await store.update("ok", { status: "working" }, at(6))).toBeUndefined();
      expect(
        await store.update("ok", { status: "failed", error: { code: -32603, message: "x" } }, at(6)),
      ).toBeUndefined();
      expect(await store.get("ok", "alice", at(7))).toMatchObject({ status: "completed", result });
      const failed = await store.update(
        "bad",
        { status: "failed", error: { code: -32603, message: "boom" }, result: { content: [] } },
        at(5),
      );
      expect(failed).toMatchObject({ status: "failed", error: { code: -32603, message: "boom" } });
      expect(failed?.result).toBeUndefined();
      await store.close();
    });

    it("an ended task is its owner's only, and gone after its ttl, on the instance that ended it too", async () => {
      const store = await open();
      await store.create(task("brief", "alice", 1_000));
      await store.update("brief", { status: "completed", result: { content: [] } }, at(10));
      expect(await store.get("brief", "alice", at(999))).toMatchObject({ status: "completed" });
      expect(await store.get("brief", "mallory", at(999))).toBeUndefined();
      expect(await store.get("brief", "alice", at(1_000))).toBeUndefined();
      await store.close();
    });

    it("cancel marks a running task and leaves an ended one as it was", async () => {
      const store = await open();
      await store.create(task("c1"));
      await store.create(task("c2"));
      expect(await store.cancel("c1", "alice", at(1))).toBe(true);
      expect((await store.get("c1", "alice", at(2)))?.cancelRequested).toBe(true);
      await store.update("c2", { status: "completed", result: { content: [] } }, at(1));
      expect(await store.cancel("c2", "alice", at(2))).toBe(true);
      expect(await store.get("c2", "alice", at(3))).toMatchObject({ status: "completed" });
      expect((await store.get("c2", "alice", at(3)))?.cancelRequested).toBeUndefined();
      await store.close();
    });

    it("forgets a task after its ttl, and counts the owner's live tasks", async () => {
      const store = await open();
      await store.create(task("short", "alice", 1_000));
      await store.create(task("long", "alice", null));
      await store.create(task("other", "bob"));
      expect(await store.liveCount("alice", at(10))).toBe(2);
      expect(await store.get("short", "alice", at(999))).toBeDefined();
      expect(await store.get("short", "alice", at(1_000))).toBeUndefined();
      expect(await store.liveCount("alice", at(2_000))).toBe(1);
      await store.update("long", { status: "completed", result: { content: [] } }, at(2_000));
      expect(await store.liveCount("alice", at(2_001))).toBe(0);
      expect(await store.prune(at(61_000))).toBeGreaterThanOrEqual(1);
      expect(await store.get("other", "bob", at(61_000))).toBeUndefined();
      expect(await store.get("long", "alice", at(61_000))).toMatchObject({ status: "completed" });
      await store.close();
    });

    it("reads a task whose worker stopped renewing its lease as failed, retryable; a renewal names the handlers to stop", async () => {
      const store = await open();
      const leased = (id: string, worker: string) => ({ ...task(id), worker, leaseUntil: at(1_000).getTime() });
      await store.create(leased("l1", "w1"));
      await store.create(leased("l2", "w1"));
      await store.create(leased("l3", "w2"));
      await store.cancel("l2", "alice", at(10));
      // l2: cancel asked for (maybe on another instance); l3: another worker's; gone: no such task.
      expect(await store.renew("w1", ["l1", "l2", "l3", "gone"], at(5_000).getTime(), at(500))).toEqual([
        "l2",
        "l3",
        "gone",
      ]);
      expect(await store.liveCount("alice", at(900))).toBe(3);
      // A lease counts up to its last millisecond (l2 and l3 still end at 1,000; l1 was renewed).
      expect(await store.liveCount("alice", at(1_000))).toBe(3);
      expect(await store.liveCount("alice", at(1_001))).toBe(1);
      expect(await store.liveCount("alice", at(4_000))).toBe(1);
      expect((await store.get("l1", "alice", at(4_000)))?.status).toBe("working");
      const lost = await store.get("l1", "alice", at(5_001));
      expect(lost).toMatchObject({ status: "failed", error: WORKER_LOST, statusMessage: WORKER_LOST.message });
      expect(WORKER_LOST.data).toEqual({
        "toolshed.dev/error": { kind: "tool", code: "unavailable", retryable: true },
      });
      // The late worker's end is refused: the task stays failed as read.
      expect(await store.update("l1", { status: "completed", result: { content: [] } }, at(5_002))).toBeUndefined();
      expect(await store.get("l1", "alice", at(5_003))).toMatchObject({ status: "failed" });
      // A lost task is not taken back by a late renewal: its worker is told to stop.
      expect(await store.renew("w1", ["l1", "l2"], at(9_000).getTime(), at(5_004))).toEqual(["l1", "l2"]);
      expect(await store.get("l1", "alice", at(5_005))).toMatchObject({ status: "failed" });
      expect(await store.liveCount("alice", at(5_003))).toBe(0);
      await store.close();
    });
  });
}

describeTaskStore("MemoryTaskStore", async () => new MemoryTaskStore());
describeTaskStore("SqliteTaskStore", async () => new SqliteTaskStore(openSqlite(":memory:")));

describe("SqliteTaskStore, a change to a task not written yet", () => {
  it("is written with the task and settles with it; once written, updateUnwritten leaves it to update", async () => {
    const store = new SqliteTaskStore(openSqlite(":memory:"));
    const created = store.create(task("quick"));
    const changed = store.updateUnwritten("quick", { status: "completed", result: { content: [] } }, at(5));
    expect(changed).toBeDefined();
    // Not kept yet: a get does not find it before the group write.
    expect(await store.get("quick", "alice", at(6))).toBeUndefined();
    await created;
    expect(await changed).toMatchObject({ status: "completed" });
    expect(await store.get("quick", "alice", at(7))).toMatchObject({ status: "completed", result: { content: [] } });
    expect(store.updateUnwritten("quick", { progress: { progress: 1 } }, at(8))).toBeUndefined();
    // A change the rules refuse is refused here too (an ended task does not change).
    const again = store.create(task("ended"));
    store.updateUnwritten("ended", { status: "cancelled" }, at(9));
    expect(await store.updateUnwritten("ended", { status: "completed" }, at(10))).toBeUndefined();
    await again;
    expect(await store.get("ended", "alice", at(11))).toMatchObject({ status: "cancelled" });
    await store.close();
  });
});

describe("SqliteTaskStore, counts of live tasks", () => {
  it("count the caller's tasks still waiting for their group write, not those that ended before it", async () => {
    const store = new SqliteTaskStore(openSqlite(":memory:"));
    await store.create(task("kept"));
    const created = [store.create(task("one")), store.create(task("two")), store.create(task("bobs", "bob"))];
    // Not written yet, and counted all the same (the limit holds for creates made together).
    expect(await store.liveCount("alice", at(1))).toBe(3);
    expect(await store.liveCount("bob", at(1))).toBe(1);
    expect(await store.liveCount("carol", at(1))).toBe(0);
    const quick = store.create(task("quick"));
    store.updateUnwritten("quick", { status: "completed", result: { content: [] } }, at(1));
    // A second create of a waiting id fails in the write: it is not counted twice.
    const again = store.create(task("one"));
    expect(await store.liveCount("alice", at(2))).toBe(3);
    await Promise.all([...created, quick]);
    await expect(again).rejects.toThrow();
    expect(await store.liveCount("alice", at(3))).toBe(3);
    await store.close();
  });

  it("read from the file once a millisecond; the tasks written here since are added, any other change reads again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolshed-tasks-"));
    const file = join(dir, "tasks.db");
    const here = new SqliteTaskStore(openSqlite(file));
    const there = new SqliteTaskStore(openSqlite(file));
    try {
      await here.create(task("mine"));
      expect(await here.liveCount("alice", at(5))).toBe(1);
      await there.create(task("theirs"));
      // Another process's task is seen from the next millisecond on; this store's own are added
      // to the count as they are written (a read now would see three).
      expect(await here.liveCount("alice", at(5))).toBe(1);
      await here.create(task("mine too"));
      expect(await here.liveCount("alice", at(5))).toBe(2);
      expect(await here.liveCount("alice", at(6))).toBe(3);
      // This store's own end of a task is seen at once.
      await here.update("mine", { status: "cancelled" }, at(6));
      expect(await here.liveCount("alice", at(6))).toBe(2);
    } finally {
      await here.close();
      await there.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("SqliteTaskStore, group writes", () => {
  it("a small group waits one turn of the event loop: tasks made in that turn join its transaction", async () => {
    const db = openSqlite(":memory:");
    let writes = 0;
    // The store's connection, counting the IMMEDIATE transactions it opens.
    const counted: TaskSqlite = {
      exec: (sql) => db.exec(sql),
      prepare: (sql) => db.prepare(sql),
      transaction: <F extends (...args: never[]) => unknown>(fn: F) => {
        const tx = db.transaction(fn);
        return {
          immediate: (...args: Parameters<F>) => {
            writes++;
            return tx.immediate(...args) as ReturnType<F>;
          },
        };
      },
    };
    const store = new SqliteTaskStore(counted);
    const first = store.create(task("first"));
    const second = new Promise<void>((resolve, reject) =>
      setImmediate(() => store.create(task("second")).then(resolve, reject)),
    );
    await Promise.all([first, second]);
    expect(writes).toBe(1);
    expect(await store.liveCount("alice", at(1))).toBe(2);
    await store.close();
  });
});

describe("SqliteTaskStore, ended tasks kept for gets", () => {
  it("keeps the newest 1,024 small ones in memory; a large one, and older ones, are read from the table", async () => {
    const db = openSqlite(":memory:");
    const store = new SqliteTaskStore(db);
    const ids = Array.from({ length: 1_030 }, (_, i) => `small${i}`);
    for (const id of ids) {
      await store.create(task(id));
      await store.update(id, { status: "completed", result: { content: [] } }, at(1));
    }
    await store.create(task("large"));
    const text = "x".repeat(70_000);
    await store.update("large", { status: "completed", result: { content: [{ type: "text", text }] } }, at(1));
    // The rows go behind the store's back: what it still answers, it answers from memory.
    db.exec("DELETE FROM toolshed_tasks");
    expect(await store.get("small1029", "alice", at(2))).toMatchObject({ status: "completed" });
    expect(await store.get("small6", "alice", at(2))).toMatchObject({ status: "completed" });
    expect(await store.get("small5", "alice", at(2))).toBeUndefined();
    expect(await store.get("large", "alice", at(2))).toBeUndefined();
    await store.close();
  });
});

describe("SqliteTaskStore, two instances on one file", () => {
  it("an ended task reads the same on the instance that ended it and on another", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolshed-tasks-"));
    const file = join(dir, "tasks.db");
    const here = new SqliteTaskStore(openSqlite(file));
    const there = new SqliteTaskStore(openSqlite(file));
    try {
      const result = { content: [{ type: "text", text: "42" }], structuredContent: { n: 42 } };
      // Ended before its group write (a quick task) and ended after it.
      const created = here.create(task("quick"));
      here.updateUnwritten("quick", { status: "completed", result }, at(1));
      await created;
      await here.create(task("slow"));
      await here.update("slow", { status: "failed", error: { code: -32603, message: "boom" } }, at(2));
      for (const id of ["quick", "slow"]) {
        const mine = await here.get(id, "alice", at(3));
        expect(mine?.status).toMatch(/completed|failed/);
        expect(await there.get(id, "alice", at(3))).toEqual(mine);
      }
      // Ended elsewhere: this instance reads what the other wrote.
      await there.create(task("theirs"));
      await there.update("theirs", { status: "cancelled" }, at(4));
      expect(await here.get("theirs", "alice", at(5))).toMatchObject({ status: "cancelled" });
    } finally {
      await here.close();
      await there.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// The table as it was before lease_until was a column, with one live task whose lease ran out at
// 1,000 and one that has none (both alice's).
const OLD_TABLE = [
  "CREATE TABLE toolshed_tasks (task_id TEXT PRIMARY KEY, owner TEXT NOT NULL, status TEXT NOT NULL, expires_at BIGINT, data %JSON% NOT NULL)",
  "CREATE INDEX toolshed_tasks_owner ON toolshed_tasks (owner, status)",
];
const oldRows = () =>
  [
    { ...task("lapsed"), worker: "w", leaseUntil: at(1_000).getTime() },
    { ...task("unleased"), worker: "w" },
  ].map((t) => [t.taskId, t.owner, t.status, at(60_000).getTime(), JSON.stringify(t)]);

describe("SqliteTaskStore on a table made before the lease column", () => {
  it("adds the column from the live tasks' JSON: a lapsed lease counts out, and leases renew", async () => {
    const db = openSqlite(":memory:");
    for (const sql of OLD_TABLE) db.exec(sql.replace("%JSON%", "TEXT"));
    const insert = db.prepare("INSERT INTO toolshed_tasks VALUES (?, ?, ?, ?, ?)");
    for (const row of oldRows()) insert.run(...row);
    const store = new SqliteTaskStore(db);
    expect(await store.liveCount("alice", at(500))).toBe(2);
    expect(await store.liveCount("alice", at(2_000))).toBe(1);
    expect(await store.renew("w", ["lapsed"], at(9_000).getTime(), at(900))).toEqual([]);
    expect(await store.liveCount("alice", at(2_000))).toBe(2);
    // A second store on the same connection finds the column there.
    expect(await new SqliteTaskStore(db).liveCount("alice", at(2_000))).toBe(2);
    // The index of every task gave way to the index of live ones.
    expect(indexesOf(db)).toEqual(["toolshed_tasks_expiry", "toolshed_tasks_live"]);
    await store.close();
  });
});

const indexesOf = (db: ReturnType<typeof openSqlite>) =>
  (
    db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'toolshed_tasks' AND sql IS NOT NULL",
      )
      .all() as Array<{ name: string }>
  )
    .map((r) => r.name)
    .sort();

describe("SqliteTaskStore, the index of live tasks", () => {
  it("holds the tasks not ended only, and is what a count reads", async () => {
    const db = openSqlite(":memory:");
    const store = new SqliteTaskStore(db);
    const ended: TaskRecord = { ...task("ended"), status: "completed", result: { content: [] } };
    await Promise.all([store.create(task("running")), store.create(ended)]);
    expect(await store.liveCount("alice", at(0))).toBe(1);
    const inIndex = db
      .prepare(
        "SELECT task_id FROM toolshed_tasks INDEXED BY toolshed_tasks_live WHERE owner = 'alice' AND status IN ('working', 'input_required')",
      )
      .all() as Array<{ task_id: string }>;
    expect(inIndex.map((r) => r.task_id)).toEqual(["running"]);
    const plan = db
      .prepare(
        "EXPLAIN QUERY PLAN SELECT COUNT(*) AS live FROM toolshed_tasks WHERE owner = ? AND status IN ('working', 'input_required') AND (expires_at IS NULL OR expires_at > ?) AND coalesce(lease_until >= ?, 1)",
      )
      .all("alice", 0, 0) as Array<{ detail: string }>;
    expect(plan.map((r) => r.detail).join("; ")).toContain("USING INDEX toolshed_tasks_live");
    await store.close();
  });
});

// PostgreSQL: a schema of its own for this file; skipped with a message when the database is not
// there, except under CI, where pgReachable fails the run.
const pg = await pgReachable();
if (!pg) process.stderr.write(`PostgresTaskStore tests SKIPPED: PostgreSQL (${TEST_DATABASE_URL}) is not reachable\n`);
let schema: TestSchema | undefined;
afterAll(async () => {
  await schema?.drop();
});
if (pg) {
  describe("PostgresTaskStore on a table made before the lease column", () => {
    it("adds the column from the live tasks' JSON: a lapsed lease counts out, and leases renew", async () => {
      schema ??= await createTestSchema();
      const pool = schema.pool({ max: 2 });
      try {
        await pool.query("DROP TABLE IF EXISTS toolshed_tasks");
        for (const sql of OLD_TABLE) await pool.query(sql.replace("%JSON%", "JSONB"));
        for (const row of oldRows())
          await pool.query("INSERT INTO toolshed_tasks VALUES ($1, $2, $3, $4, $5::jsonb)", row);
        const store = await PostgresTaskStore.open(pool);
        expect(await store.liveCount("alice", at(500))).toBe(2);
        expect(await store.liveCount("alice", at(2_000))).toBe(1);
        expect(await store.renew("w", ["lapsed"], at(9_000).getTime(), at(900))).toEqual([]);
        expect(await store.liveCount("alice", at(2_000))).toBe(2);
        // Opened again (another instance starting): the column is there, nothing changes.
        expect(await (await PostgresTaskStore.open(pool)).liveCount("alice", at(2_000))).toBe(2);
      } finally {
        await pool.query("DROP TABLE IF EXISTS toolshed_tasks");
      }
    });
  });

  describe("PostgresTaskStore across instances (issue 58.4, 58.5)", () => {
    it("creates made together on two instances hold one owner's live-task limit; another owner is not held", async () => {
      schema ??= await createTestSchema();
      const pools = [schema.pool({ max: 5 }), schema.pool({ max: 5 })];
      try {
        await pools[0]?.query("DROP TABLE IF EXISTS toolshed_tasks");
        const stores = await Promise.all(pools.map((p) => PostgresTaskStore.open(p)));
        // Tasks that never expire: the count is the store's own, taken at the create.
        const outcomes = await Promise.allSettled(
          Array.from({ length: 60 }, (_, i) => stores[i % 2]?.create(task(`burst-${i}`, "alice", null), 10)),
        );
        expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(10);
        for (const o of outcomes.filter((o) => o.status === "rejected")) {
          expect((o as PromiseRejectedResult).reason).toBeInstanceOf(TooManyTasksError);
        }
        expect(await stores[0]?.liveCount("alice")).toBe(10);
        await stores[1]?.create(task("other", "bob", null), 10);
        expect(await stores[0]?.liveCount("bob")).toBe(1);
      } finally {
        await pools[0]?.query("DROP TABLE IF EXISTS toolshed_tasks");
      }
    });

    it("reads a listen's task ids in one query, however many", async () => {
      schema ??= await createTestSchema();
      const pool = schema.pool({ max: 2 });
      let queries = 0;
      const counting = {
        query: (text: string, values?: unknown[]) => {
          queries++;
          return pool.query(text, values);
        },
        connect: () => pool.connect(),
      };
      try {
        await pool.query("DROP TABLE IF EXISTS toolshed_tasks");
        const store = await PostgresTaskStore.open(counting);
        await store.create(task("mine", "alice", null));
        queries = 0;
        const ids = ["mine", ...Array.from({ length: 1_000 }, (_, i) => `unknown-${i}`)];
        expect((await store.getMany(ids, "alice")).map((t) => t.taskId)).toEqual(["mine"]);
        expect(queries).toBe(1);
      } finally {
        await pool.query("DROP TABLE IF EXISTS toolshed_tasks");
      }
    });
  });

  describeTaskStore("PostgresTaskStore", async () => {
    schema ??= await createTestSchema();
    const pool = schema.pool({ max: 2 });
    await pool.query("DROP TABLE IF EXISTS toolshed_tasks");
    return PostgresTaskStore.open(pool);
  });
}
