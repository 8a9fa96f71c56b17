import { writeFileSync } from "node:fs";
import { createTestSchema, pgReachable, TEST_DATABASE_URL, type TestSchema } from "@toolshed/storage/postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HttpProcess, killChildren, post, removeTempDirs, startServer, tempDir } from "./helpers.js";
import { redisReachable, TEST_REDIS_URL, testKeyPrefix } from "./services.js";

// Three toolshed-http processes on one PostgreSQL schema and one Redis, as behind a load balancer.
const pg = await pgReachable();
const redis = await redisReachable();
const skip = !pg || !redis;
if (skip) {
  process.stderr.write(
    `multi-instance test SKIPPED: ${!pg ? `PostgreSQL (${TEST_DATABASE_URL})` : `Redis (${TEST_REDIS_URL})`} is not reachable\n`,
  );
}

const WRITER = "writer-token-0123456789abcdef";
const LIMITED = "limited-token-0123456789abcdef";
const LIMIT = 30;
const CALLS = 3_000;
const CYCLES_AT_ONCE = 12;

interface ToolResult {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content?: Array<{ text?: string }>;
}

describe.skipIf(skip)("three instances, one PostgreSQL, one Redis", () => {
  let db: TestSchema;
  const keys = testKeyPrefix();
  let servers: HttpProcess[] = [];
  let nextId = 1;

  beforeAll(async () => {
    db = await createTestSchema();
    const tokensFile = tempDir().file("tokens.json");
    writeFileSync(
      tokensFile,
      JSON.stringify([
        { id: "writer", token: WRITER, scopes: ["tools:read", "tools:write"] },
        { id: "limited", token: LIMITED, scopes: ["tools:read"], rate_limit: LIMIT },
      ]),
    );
    const args = [
      ...["--database-url", db.url, "--database-schema", db.schema],
      ...["--redis-url", TEST_REDIS_URL, "--redis-prefix", keys.prefix],
      ...["--tokens-file", tokensFile, "--rate-limit", "1000000", "--demo"],
    ];
    // Started together: migrations and demo seeding race, as when a deployment rolls out.
    servers = await Promise.all([0, 1, 2].map(() => startServer(args)));
  }, 120_000);

  afterAll(async () => {
    await killChildren();
    removeTempDirs();
    await keys.cleanUp();
    await db?.drop();
  });

  const call = async (instance: number, name: string, args: Record<string, unknown>, token = WRITER) => {
    const server = servers[instance % servers.length] as HttpProcess;
    const res = await post(
      server.url,
      { jsonrpc: "2.0", id: nextId++, method: "tools/call", params: { name, arguments: args } },
      { authorization: `Bearer ${token}` },
    );
    if (res.status !== 200) throw new Error(`${name} on instance ${instance}: HTTP ${res.status} ${res.text}`);
    const result = (res.json as { result?: ToolResult }).result;
    if (!result) throw new Error(`${name} on instance ${instance}: ${res.text}`);
    return result;
  };

  it("3,000 mixed calls round-robin: no duplicate, no lost write, reads see writes", async () => {
    const created = new Map<string, Promise<ToolResult>>();
    const raceTickets = new Map<number, Promise<ToolResult[]>>();
    const failures: string[] = [];
    let calls = 0;
    let rr = 0;
    const next = () => rr++ % 3;
    const check = (what: string, result: ToolResult) => {
      calls++;
      if (result.isError) failures.push(`${what}: ${result.content?.[0]?.text}`);
      return result;
    };

    // One cycle is 10 calls; 300 cycles make 3,000.
    const cycle = async (c: number) => {
      const writer = next();
      const title = `mi-note-${c}`;
      const body = `written on instance ${writer} in cycle ${c}`;
      const create = call(writer, "create_note", { title, body, idempotency_key: `note-${c}` }).then((r) =>
        check("create_note", r),
      );
      created.set(title, create);
      await create;
      // Read on the other two instances: every instance sees the write at once.
      for (const reader of [writer + 1, writer + 2]) {
        const got = check("get_note", await call(reader, "get_note", { title }));
        if (got.structuredContent?.body !== body) failures.push(`get_note ${title} on ${reader % 3}: stale or missing`);
      }
      check("search_notes", await call(next(), "search_notes", { query: "groceries", limit: 5 }));
      // A retried create with the same key on another instance returns the first note.
      const retry = check(
        "create_note retry",
        await call(writer + 1, "create_note", { title, body, idempotency_key: `note-${c}` }),
      );
      if (retry.structuredContent?.title !== title) failures.push(`retry of ${title} did not return it`);
      // Racing idempotent creates: the same ticket sent to all three instances at once.
      const race = Promise.all(
        [0, 1, 2].map((i) =>
          call(i, "create_ticket", { title: `race ${c}`, body: `race body ${c}`, idempotency_key: `race-${c}` }).then(
            (r) => check("create_ticket", r),
          ),
        ),
      );
      raceTickets.set(c, race);
      const tickets = await race;
      const id = tickets[0]?.structuredContent?.id;
      const got = check("get_ticket", await call(next(), "get_ticket", { id }));
      if (got.structuredContent?.title !== `race ${c}`) failures.push(`get_ticket ${String(id)}: stale or missing`);
      const accounts = [1 + (c % 33), 1 + ((c + 11) % 33)].map((n) => `acc_${1000 + n}`);
      const tiers = ["startup", "growth", "enterprise"] as const;
      const bulk = check(
        "crm_bulk_update_tier",
        await call(next(), "crm_bulk_update_tier", { account_ids: accounts, new_tier: tiers[c % 3] }),
      );
      if (bulk.structuredContent?.succeeded_count !== 2) failures.push(`bulk update ${c}: ${JSON.stringify(bulk)}`);
    };

    const started = Date.now();
    const cycles = CALLS / 10;
    let cursor = 0;
    // 12 cycles at once, each with 1 to 3 calls in flight: 12-36 calls in flight.
    const workers = Array.from({ length: CYCLES_AT_ONCE }, async () => {
      while (cursor < cycles) await cycle(cursor++);
    });
    await Promise.all(workers);
    const seconds = (Date.now() - started) / 1000;
    process.stderr.write(
      `multi-instance: ${calls} calls over 3 instances in ${seconds.toFixed(1)} s (${Math.round(calls / seconds)}/s)\n`,
    );

    expect(failures).toEqual([]);
    expect(calls).toBe(CALLS);

    // Every race answered one ticket, three times, and the database holds exactly one per race.
    for (const [c, race] of raceTickets) {
      const ids = new Set((await race).map((r) => r.structuredContent?.id));
      expect(ids.size, `race ${c}`).toBe(1);
    }
    const pool = db.pool();
    const tickets = await pool.query(
      "SELECT title, count(*)::int AS n FROM tickets WHERE title LIKE 'race %' GROUP BY title HAVING count(*) > 1",
    );
    expect(tickets.rows).toEqual([]);
    const raceCount = await pool.query("SELECT count(*)::int AS n FROM tickets WHERE title LIKE 'race %'");
    expect(raceCount.rows[0].n).toBe(cycles);
    // No lost write: every note is there once, with the body it was written with.
    const notes = await pool.query("SELECT title, body FROM notes WHERE title LIKE 'mi-note-%'");
    expect(notes.rows).toHaveLength(cycles);
    for (const row of notes.rows as Array<{ title: string; body: string }>) {
      expect(row.body).toMatch(/^written on instance \d in cycle \d+$/);
    }
  }, 300_000);

  it(`the rate limit is global: ${LIMIT} per minute for a token is ${LIMIT} in total over three instances`, async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT * 3; i++) {
      const server = servers[i % 3] as HttpProcess;
      const res = await post(
        server.url,
        { jsonrpc: "2.0", id: i, method: "tools/list" },
        { authorization: `Bearer ${LIMITED}` },
      );
      statuses.push(res.status);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(LIMIT);
    expect(statuses.filter((s) => s === 429)).toHaveLength(LIMIT * 2);
    // With per-instance (memory) limits the sum would have been 3 × LIMIT.
    for (const server of servers) {
      const ready = await fetch(`${server.base}/readyz`);
      expect(ready.status).toBe(200);
    }
  }, 120_000);
});
