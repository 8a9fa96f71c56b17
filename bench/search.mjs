#!/usr/bin/env node
import { randomBytes } from "node:crypto";
// Seeds each pack's SQLite store with realistic rows at each scale (10k, 100k and 1M by default)
// and measures search latency through the MCP tool, through the store, and with a naive LIKE
// query for comparison. With --database-url, the same on each pack's PostgreSQL store (each in a
// new schema, dropped afterwards; no LIKE paths). Runs on the built packages (dist): `npm run
// build` at the root first.
//
//   node search.mjs [--scale 10k,100k,1m | --rows N] [--quick] [--queries N] [--seed auto|api|sql]
//                   [--packs notes,crm] [--database-url URL] [--out FILE|-]
//
// Exits 1 when any check fails, so a CI `--quick` run catches wrong answers, not only slow ones.
import { mkdtempSync, openSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { connectInMemory, createLogger, createServer } from "@toolshed/server";
import { openSqlite } from "@toolshed/storage";
import { createPgPool } from "@toolshed/storage/postgres";
import { likeSearcher, matchCounter, PACKS, pgMatchCounter, tokens } from "./lib/packs.mjs";
import { buildQueries } from "./lib/queries.mjs";
import { renderReport } from "./lib/report.mjs";
import { summarize } from "./lib/stats.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const DEFAULT_OUT = resolve(here, "../docs/benchmarks-search.md");
const DEFAULT_PG_OUT = resolve(here, "../docs/benchmarks-search-postgres.md");
const LIMIT = 10;
const MIN_API_RATE = 5000;
const RATE_WINDOW = 5000;
// Below this, common words may miss the limit and the checks would fail for no fault of a pack.
const MIN_ROWS = 1000;

/** A wrong command-line option: printed without a stack. */
class UsageError extends Error {}

function readOptions() {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        rows: { type: "string" },
        scale: { type: "string" },
        quick: { type: "boolean", default: false },
        queries: { type: "string" },
        seed: { type: "string", default: "auto" },
        packs: { type: "string", default: "notes,tickets,crm" },
        "database-url": { type: "string" },
        keep: { type: "boolean", default: false },
        out: { type: "string" },
        help: { type: "boolean", default: false },
      },
    });
  } catch (error) {
    throw new UsageError(error.message);
  }
  const { values } = parsed;
  if (values.help) {
    console.log(
      "Usage: node search.mjs [--scale 10k,100k,1m | --rows N] [--quick] [--queries N] [--seed auto|api|sql] [--packs notes,tickets,crm] [--database-url URL] [--out FILE|-]\n" +
        "  --scale   rows per pack, one run per size (default 10k,100k,1m)\n" +
        "  --quick   10,000 rows and 50 queries per path; prints the report but writes no file unless --out is given\n" +
        "  --seed    auto (default): public API while it keeps up 5,000 rows/s, then the store's SQL in one transaction\n" +
        "  --database-url  postgres://…: the PostgreSQL stores instead, each pack in a new schema dropped afterwards\n" +
        "            (default report docs/benchmarks-search-postgres.md)\n" +
        "  --keep    with --database-url: leave the schemas in place for a look with psql (their names go to stderr)",
    );
    process.exit(0);
  }
  const positive = (name, text, fallback) => {
    if (text === undefined) return fallback;
    const n = Number(text.replace(/_/g, ""));
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${name} must be a positive integer (got ${text})`);
    return n;
  };
  if (!["auto", "api", "sql"].includes(values.seed)) {
    throw new UsageError(`--seed must be auto, api or sql (got ${values.seed})`);
  }
  const packs = values.packs.split(",").map((p) => p.trim());
  for (const p of packs) {
    if (!PACKS[p]) throw new UsageError(`unknown pack "${p}"; use some of ${Object.keys(PACKS).join(",")}`);
  }
  const quick = values.quick;
  const databaseUrl = values["database-url"];
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new UsageError(`--database-url takes a postgres:// URL (got ${databaseUrl})`);
  }
  const defaultOut = databaseUrl === undefined ? DEFAULT_OUT : DEFAULT_PG_OUT;
  const out = values.out === "-" ? undefined : (values.out ?? (quick ? undefined : defaultOut));
  if (values.rows !== undefined && values.scale !== undefined) throw new UsageError("use --rows or --scale, not both");
  const scales =
    values.rows !== undefined
      ? [positive("rows", values.rows)]
      : values.scale !== undefined
        ? values.scale.split(",").map(parseScale)
        : quick
          ? [10_000]
          : [10_000, 100_000, 1_000_000];
  for (const rows of scales) {
    if (rows < MIN_ROWS) throw new UsageError(`rows per pack must be at least ${MIN_ROWS} (got ${rows})`);
  }
  return {
    scales,
    queries: positive("queries", values.queries, quick ? 50 : 300),
    warmup: quick ? 10 : 30,
    distinct: quick ? 40 : 120,
    creates: quick ? 10 : 20,
    seed: values.seed,
    minRate: MIN_API_RATE,
    packs: packs.map((p) => PACKS[p]),
    databaseUrl,
    keep: values.keep,
    out: out && resolve(out),
  };
}

/** "10k", "1m", "250000" or "250_000" as a row count. */
function parseScale(text) {
  const match = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(text.trim().replace(/_/g, ""));
  const rows = match ? Math.round(Number(match[1]) * { "": 1, k: 1e3, m: 1e6 }[match[2].toLowerCase()]) : Number.NaN;
  if (!Number.isInteger(rows) || rows < 1)
    throw new UsageError(`--scale takes sizes such as 10k,100k,1m (got ${text})`);
  return rows;
}

// From this size a LIKE query reads about a second of rows: those paths run each distinct query once.
const SLOW_LIKE_ROWS = 500_000;

const now = () => performance.now();

/** The rows of a pack, unique where the pack needs it, the same on every run. */
function rowMaker(pack) {
  const seen = pack.uniqueKey ? new Set() : undefined;
  const rowAt = (index) => {
    let row = pack.row(index);
    if (seen) {
      if (seen.has(pack.uniqueKey(row))) row = pack.makeUnique(row, index);
      seen.add(pack.uniqueKey(row));
    }
    return row;
  };
  return rowAt;
}

/** Creates rows through the public API while it keeps up (see `--seed`); returns how many. */
async function seedThroughApi(pack, opened, rowAt, options) {
  let index = 0;
  let slowAt;
  if (options.seed !== "sql") {
    // A window that takes longer than this is below the minimum rate; stop there, without
    // waiting for a slow API to finish the window.
    const budget = (RATE_WINDOW / options.minRate) * 1000;
    let windowStart = now();
    let windowRows = 0;
    while (index < options.rows) {
      await pack.createApi(opened, rowAt(index));
      index++;
      windowRows++;
      if (options.seed !== "auto") continue;
      const elapsed = now() - windowStart;
      if (elapsed > budget) {
        slowAt = { row: index, rate: (windowRows / elapsed) * 1000 };
        break;
      }
      if (windowRows === RATE_WINDOW) {
        windowStart = now();
        windowRows = 0;
      }
    }
  }
  return { index, slowAt };
}

/**
 * Fills a new store through the public API while it keeps up (see `--seed`), then has `bulk`
 * insert the rest (rows `from` to options.rows) with the store's own statements.
 */
async function seedWith(pack, opened, options, bulk) {
  const rowAt = rowMaker(pack);
  const started = now();
  const { index, slowAt } = await seedThroughApi(pack, opened, rowAt, options);
  const apiMs = now() - started;
  const api = { rows: index, ms: apiMs, rate: index / (apiMs / 1000) };
  const sqlStarted = now();
  if (index < options.rows) await bulk(rowAt, index);
  const sqlMs = now() - sqlStarted;
  const sql = { rows: options.rows - api.rows, ms: sqlMs, rate: (options.rows - api.rows) / (sqlMs / 1000) };
  opened.clock.release();
  return { opened, seed: { rows: options.rows, api, sql, slowAt, ms: now() - started } };
}

/** A pack's SQLite file: the rest in one transaction without the FTS trigger, then one FTS5 'rebuild'. */
function seedPack(pack, file, options) {
  return seedWith(pack, pack.open(file), options, (rowAt, from) => {
    const db = openSqlite(file);
    try {
      const insert = pack.bulkInserter(db);
      // Indexing row by row through the FTS trigger runs at about 3,000 rows/s at 1M rows; one
      // 'rebuild' after the inserts builds the same index from the table several times faster.
      // The trigger is put back as it was, in the same transaction.
      const trigger = `${pack.ftsTable}_insert`;
      const { sql: triggerSql } = db
        .prepare("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?")
        .get(trigger);
      db.transaction(() => {
        db.exec(`DROP TRIGGER ${trigger}`);
        for (let index = from; index < options.rows; index++) insert(rowAt(index));
        db.exec(`INSERT INTO ${pack.ftsTable} (${pack.ftsTable}) VALUES ('rebuild')`);
        db.exec(triggerSql);
      })();
    } finally {
      db.close();
    }
  });
}

// Rows per INSERT … SELECT FROM unnest(…) when seeding PostgreSQL.
const PG_BATCH = 5000;

/**
 * A pack's tables in a new PostgreSQL schema: the rest with the store's INSERTs in batches, in one
 * transaction that drops the GIN index, inserts and builds the index again from its own
 * definition (as with FTS5 'rebuild' on SQLite).
 */
async function seedPackPg(pack, url, schema, options) {
  return seedWith(pack, await pack.pg.open(url, schema), options, async (rowAt, from) => {
    const pool = createPgPool(url, { schema, max: 1, statementTimeoutMs: 0 });
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      const { rows } = await client.query("SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = $2", [
        schema,
        pack.pg.searchIndex,
      ]);
      if (rows.length !== 1) throw new Error(`${pack.name}: no index ${pack.pg.searchIndex} in schema ${schema}`);
      await client.query(`DROP INDEX ${pack.pg.searchIndex}`);
      for (let index = from; index < options.rows; ) {
        const batch = [];
        for (; index < options.rows && batch.length < PG_BATCH; index++) batch.push(rowAt(index));
        await pack.pg.bulkInsert(client, batch);
      }
      // The server's default (64 MB) builds a 1M-row GIN index in several passes.
      await client.query("SET LOCAL maintenance_work_mem = '512MB'");
      await client.query(rows[0].indexdef);
      await client.query("COMMIT");
      // Fresh statistics, as autovacuum would gather after a bulk load.
      await client.query("VACUUM ANALYZE");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.release();
      await pool.end();
    }
  });
}

/** Runs `run` for `total` queries (after `warmup` untimed ones), cycling through `queries`. */
async function timed(queries, { queries: total, warmup }, run) {
  return timedRuns(queries, total, warmup, run);
}

async function timedRuns(queries, total, warmup, run) {
  for (let i = 0; i < warmup; i++) await run(queries[i % queries.length]);
  const samples = [];
  for (let i = 0; i < total; i++) {
    const query = queries[i % queries.length];
    const started = now();
    await run(query);
    samples.push({ kind: query.kind, ms: now() - started });
  }
  const byKind = {};
  for (const kind of new Set(samples.map((s) => s.kind))) {
    byKind[kind] = summarize(samples.filter((s) => s.kind === kind).map((s) => s.ms));
  }
  return { all: summarize(samples.map((s) => s.ms)), byKind };
}

function toolText(result) {
  return (result.content ?? [])
    .map((c) => c.text ?? "")
    .join(" ")
    .slice(0, 300);
}

/** Every distinct query once through all three paths, checking the answers. */
async function verify(pack, queries, { client, opened, like, likeRanked, textOf, matches }, fail) {
  const hitsByKind = {};
  for (const query of queries) {
    const label = `${pack.name} ${query.kind} ${JSON.stringify(query.text)}`;
    const result = await client.callTool({ name: pack.tool, arguments: pack.toolArguments(query.text, LIMIT) });
    const toolIds = pack.toolHits(result);
    if (result.isError || !Array.isArray(toolIds)) {
      fail(`${label}: ${pack.tool} answered with an error or without hits: ${toolText(result)}`);
      continue;
    }
    const storeIds = await pack.searchStore(opened, query.text, LIMIT);
    if (JSON.stringify(toolIds) !== JSON.stringify(storeIds)) {
      fail(`${label}: tool hits ${JSON.stringify(toolIds)} differ from store hits ${JSON.stringify(storeIds)}`);
    }
    const likeIds = like ? like(query.text, LIMIT) : [];
    const paths = [["FTS", storeIds]];
    if (like) paths.push(["LIKE", likeIds], ["LIKE ranked", likeRanked(query.text, LIMIT)]);
    for (const [path, ids] of paths) {
      if (query.expect === "full" && ids.length !== LIMIT) fail(`${label}: ${path} found ${ids.length}, not ${LIMIT}`);
      if (query.expect === "some" && ids.length === 0) fail(`${label}: ${path} found nothing`);
      if (query.expect === "none" && ids.length !== 0) fail(`${label}: ${path} found ${ids.length}, expected none`);
    }
    const words = tokens(query.text).map(pack.wordCheck);
    for (const id of storeIds) {
      const text = await textOf(id);
      if (text === undefined) {
        fail(`${label}: hit ${id} is not in the table`);
        continue;
      }
      const have = tokens(text);
      const missing = words.filter((w) => !have.some((t) => t.startsWith(w)));
      if (missing.length > 0) fail(`${label}: hit ${id} has no word starting with ${missing.join(", ")}`);
    }
    hitsByKind[query.kind] ??= { n: 0, fts: 0, like: 0, matched: 0 };
    const tally = hitsByKind[query.kind];
    tally.n++;
    tally.matched += await matches(query.text);
    tally.fts += storeIds.length;
    tally.like += likeIds.length;
  }
  return hitsByKind;
}

function fileBytes(file) {
  let total = 0;
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      total += statSync(f).size;
    } catch {}
  }
  return total;
}

/** A pack's SQLite file: how to seed it, the raw read paths beside the store, and its size. */
function sqlitePlace(pack, dir, rows) {
  const file = join(dir, `${pack.name}-${rows}.db`);
  let raw;
  return {
    seed: (options) => seedPack(pack, file, options),
    async open() {
      raw = openSqlite(file, { readonly: true });
      return {
        like: likeSearcher(pack, raw),
        likeRanked: likeSearcher(pack, raw, { ranked: true }),
        textOf: pack.textOf(raw),
        matches: matchCounter(pack, raw),
      };
    },
    async close() {
      raw?.close();
    },
    bytes: async () => fileBytes(file),
    // A 1M-row file is about 1 GB: free the disk before the next one.
    async remove() {
      for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
    },
  };
}

/** A pack's tables in a new PostgreSQL schema, dropped by `remove`. */
function postgresPlace(pack, url, keep) {
  const schema = `toolshed_bench_${pack.name}_${randomBytes(4).toString("hex")}`;
  const pool = createPgPool(url, { schema, max: 2, statementTimeoutMs: 0 });
  return {
    seed: (options) => seedPackPg(pack, url, schema, options),
    async open() {
      return { textOf: pack.pg.textOf(pool), matches: pgMatchCounter(pack, pool) };
    },
    async close() {},
    async bytes() {
      const { rows } = await pool.query(
        `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::float8 AS bytes
           FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = $1 AND c.relkind IN ('r', 'm')`,
        [schema],
      );
      return rows[0].bytes;
    },
    async remove() {
      try {
        if (keep) {
          process.stderr.write(`${pack.name}: kept schema ${schema}\n`);
          return;
        }
        await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await pool.end();
      }
    },
  };
}

async function benchPack(pack, place, options, logger, fail) {
  process.stderr.write(`${pack.name}: seeding ${options.rows.toLocaleString("en-US")} rows…\n`);
  const { opened, seed } = await place.seed(options);
  process.stderr.write(
    `${pack.name}: seeded in ${(seed.ms / 1000).toFixed(1)} s (API ${seed.api.rows} rows at ${Math.round(seed.api.rate)}/s` +
      `${seed.slowAt ? `, below ${options.minRate}/s at row ${seed.slowAt.row}: ${Math.round(seed.slowAt.rate)}/s` : ""}` +
      `; SQL ${seed.sql.rows} rows at ${Math.round(seed.sql.rate)}/s)\n`,
  );
  const server = createServer({ name: "toolshed-bench", version: "0.0.0", packs: [opened.pack], logger });
  const client = await connectInMemory(server);
  try {
    const raw = await place.open();
    const queries = buildQueries(pack, options.rows, options.distinct);
    const hitsByKind = await verify(pack, queries, { client, opened, ...raw }, fail);
    const slowLike = options.rows >= SLOW_LIKE_ROWS;
    const likeQueries = slowLike ? Math.min(options.queries, queries.length) : options.queries;
    const likeWarmup = slowLike ? 3 : options.warmup;
    process.stderr.write(
      `${pack.name}: measuring ${options.queries} queries per path${raw.like ? ` (LIKE: ${likeQueries})` : ""}…\n`,
    );
    const timings = {
      tool: await timed(queries, options, async (query) => {
        const result = await client.callTool({ name: pack.tool, arguments: pack.toolArguments(query.text, LIMIT) });
        if (result.isError || !Array.isArray(pack.toolHits(result))) {
          fail(`${pack.name} ${JSON.stringify(query.text)}: timed ${pack.tool} call failed: ${toolText(result)}`);
        }
      }),
      store: await timed(queries, options, (query) => pack.searchStore(opened, query.text, LIMIT)),
    };
    if (raw.like) {
      timings.like = await timedRuns(queries, likeQueries, likeWarmup, async (query) => raw.like(query.text, LIMIT));
      timings.likeRanked = await timedRuns(queries, likeQueries, likeWarmup, async (query) =>
        raw.likeRanked(query.text, LIMIT),
      );
    }
    const createMs = [];
    for (let k = 0; k < options.creates; k++) {
      const index = options.rows + k;
      const row = pack.row(index);
      const fresh = { ...(pack.makeUnique ? pack.makeUnique(row, `new ${index}`) : row), status: "open" };
      const started = now();
      await pack.createApi(opened, fresh);
      createMs.push(now() - started);
    }
    const create = summarize(createMs);
    process.stderr.write(
      `${pack.name}: tool p50 ${timings.tool.all.p50.toFixed(2)} ms p99 ${timings.tool.all.p99.toFixed(2)} ms,` +
        ` store p50 ${timings.store.all.p50.toFixed(2)} ms` +
        `${timings.like ? `, LIKE p50 ${timings.like.all.p50.toFixed(2)} ms` : ""}\n`,
    );
    return { pack: pack.name, rows: options.rows, tool: pack.tool, seed, timings, hitsByKind, create };
  } finally {
    await place.close();
    await client.close();
    await server.close();
    await opened.store.close();
    seed.bytes = await place.bytes();
  }
}

function machineInfo() {
  const probe = openSqlite(":memory:");
  const sqlite = probe.prepare("SELECT sqlite_version() AS v").get().v;
  probe.close();
  return {
    date: `${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC`,
    cpu: os.cpus()[0]?.model?.trim() ?? "unknown CPU",
    cores: os.cpus().length,
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    sqlite,
    load: os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" / "),
  };
}

/** The server's version and the settings that bound search speed, as the report states them. */
async function postgresInfo(url) {
  const pool = createPgPool(url, { max: 1 });
  try {
    const { rows } = await pool.query(
      `SELECT current_setting('server_version') AS version, current_setting('shared_buffers') AS shared_buffers,
              current_setting('work_mem') AS work_mem, current_setting('jit') AS jit,
              current_setting('max_parallel_workers_per_gather') AS parallel`,
    );
    return rows[0];
  } catch (error) {
    throw new UsageError(`PostgreSQL at --database-url did not answer: ${error.message}`);
  } finally {
    await pool.end();
  }
}

async function main() {
  const options = readOptions();
  const failures = [];
  const fail = (message) => {
    if (failures.length < 50) failures.push(message);
    else if (failures.length === 50) failures.push("… more failures not shown");
  };
  // The runtime logs one line per call, as in production; here it goes to /dev/null.
  const logger = createLogger({ destination: openSync(os.devNull, "w") });
  // Taken before the run, so the load average says what else the machine was doing.
  const machine = machineInfo();
  if (options.databaseUrl !== undefined) machine.postgres = await postgresInfo(options.databaseUrl);
  const dir = mkdtempSync(join(os.tmpdir(), "toolshed-bench-"));
  const results = [];
  try {
    for (const rows of options.scales) {
      for (const pack of options.packs) {
        const place =
          options.databaseUrl === undefined
            ? sqlitePlace(pack, dir, rows)
            : postgresPlace(pack, options.databaseUrl, options.keep);
        try {
          results.push(await benchPack(pack, place, { ...options, rows }, logger, fail));
        } finally {
          await place.remove();
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const report = renderReport({ machine, options, results, failures });
  console.log(report);
  if (options.out) {
    writeFileSync(options.out, report);
    process.stderr.write(`Wrote ${options.out}\n`);
  }
  if (failures.length > 0) {
    process.stderr.write(`\n${failures.length} check(s) failed:\n${failures.map((f) => `  ${f}`).join("\n")}\n`);
    process.exitCode = 1;
  }
}

main().catch((error) => {
  process.stderr.write(error instanceof UsageError ? `${error.message}; see --help\n` : `${error?.stack ?? error}\n`);
  process.exitCode = error instanceof UsageError ? 2 : 1;
});
