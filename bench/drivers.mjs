#!/usr/bin/env node
// The two SQLite drivers side by side on the same file: better-sqlite3 (here, Node 20) and
// node:sqlite (Node 24 and Node 22, each in a child process), through the notes pack. Seeds one
// notes file, then each driver in turn, rounds alternating, times search at that size (the store
// method and the `search_notes` tool in process) and `get_note` in process (the store method and
// the tool through the Toolshed runtime). Runs on the built packages (dist): build first.
//
//   node drivers.mjs [--rows 100k] [--queries N] [--calls N] [--rounds N] [--out FILE|-]
//                    [--node24 PATH] [--node22 PATH]
//
// Exits 1 when a driver answers differently from another (hits or notes), or a runner fails.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { connectInMemory, createLogger, createServer } from "@toolshed/server";
import { defaultSqliteDriver, openSqlite } from "@toolshed/storage";
import { PACKS } from "./lib/packs.mjs";
import { buildQueries } from "./lib/queries.mjs";
import { ms, summarize } from "./lib/stats.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(here, "..");
const LIMIT = 10;
const GROCERIES = { title: "groceries", body: "milk, eggs", tags: ["home"] };
const notes = PACKS.notes;

function options() {
  const { values } = parseArgs({
    options: {
      worker: { type: "boolean", default: false },
      file: { type: "string" },
      driver: { type: "string" },
      rows: { type: "string", default: "100k" },
      queries: { type: "string", default: "300" },
      calls: { type: "string", default: "6000" },
      rounds: { type: "string", default: "5" },
      out: { type: "string" },
      node24: { type: "string" },
      node22: { type: "string" },
    },
  });
  const count = (name, text) => {
    const match = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(text.replace(/_/g, ""));
    const n = match ? Math.round(Number(match[1]) * { "": 1, k: 1e3, m: 1e6 }[match[2].toLowerCase()]) : Number.NaN;
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive count (got ${text})`);
    return n;
  };
  return {
    ...values,
    rows: count("rows", values.rows),
    queries: count("queries", values.queries),
    calls: count("calls", values.calls),
    rounds: count("rounds", values.rounds),
  };
}

// ---- worker: one driver, one round ----

async function timeEach(items, total, warmup, run) {
  for (let i = 0; i < warmup; i++) await run(items[i % items.length]);
  const samples = [];
  for (let i = 0; i < total; i++) {
    const started = performance.now();
    await run(items[i % items.length]);
    samples.push(performance.now() - started);
  }
  return summarize(samples);
}

/** Calls per second: the median of three batches after a warm-up of half as many calls (JIT, caches). */
async function callsPerSecond(calls, run) {
  for (let i = 0; i < Math.ceil(calls / 2); i++) await run();
  const rates = [];
  for (let batch = 0; batch < 3; batch++) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < calls / 3; i++) await run();
    rates.push(calls / 3 / (Number(process.hrtime.bigint() - started) / 1e9));
  }
  return median(rates);
}

async function worker(opts) {
  const { SqliteNotesStore, notesPack } = await import("@toolshed/notes");
  const store = SqliteNotesStore.open(opts.file, { driver: opts.driver });
  const server = createServer({
    name: "toolshed-bench",
    version: "0.0.0",
    packs: [notesPack({ store })],
    logger: createLogger({ level: "warn" }),
  });
  const client = await connectInMemory(server);
  try {
    const queries = buildQueries(notes, opts.rows, 120);
    // What each query finds, so the parent can check both drivers answer the same.
    const answers = [];
    for (const q of queries) answers.push((await store.searchNotes(q.text, { limit: LIMIT })).map((h) => h.title));
    const searchStore = await timeEach(queries, opts.queries, 30, (q) => store.searchNotes(q.text, { limit: LIMIT }));
    const searchTool = await timeEach(queries, opts.queries, 30, (q) =>
      client.callTool({ name: notes.tool, arguments: notes.toolArguments(q.text, LIMIT) }),
    );
    const note = await store.getNote(GROCERIES.title);
    const getStore = await callsPerSecond(opts.calls, () => store.getNote(GROCERIES.title));
    const getTool = await callsPerSecond(opts.calls, async () => {
      const result = await client.callTool({ name: "get_note", arguments: { title: GROCERIES.title } });
      if (result.isError) throw new Error(`get_note failed: ${JSON.stringify(result.content)}`);
    });
    const sqlite = openSqlite(opts.file, { readonly: true, driver: opts.driver });
    const sqliteVersion = sqlite.prepare("SELECT sqlite_version() AS v").get().v;
    sqlite.close();
    return {
      node: process.version,
      driver: opts.driver,
      sqliteVersion,
      answers,
      note,
      searchStore,
      searchTool,
      getStore,
      getTool,
    };
  } finally {
    await client.close();
    await server.close();
    await store.close();
  }
}

// ---- parent: seed once, run each driver per round ----

function holderNode(folder, holder) {
  try {
    const from = createRequire(join(ROOT, folder, "package.json"));
    const manifest = createRequire(from.resolve(`${holder}/package.json`)).resolve("node/package.json");
    return join(dirname(manifest), JSON.parse(readFileSync(manifest, "utf8")).bin.node);
  } catch {
    return undefined;
  }
}

async function seed(file, rows) {
  const opened = notes.open(file);
  await opened.store.createNote(GROCERIES);
  opened.clock.release();
  await opened.store.close();
  const db = openSqlite(file);
  const insert = notes.bulkInserter(db);
  const seen = new Set([GROCERIES.title]);
  // As search.mjs seeds: one transaction without the FTS trigger, then one FTS 'rebuild'.
  const trigger = `${notes.ftsTable}_insert`;
  const { sql } = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?").get(trigger);
  db.transaction(() => {
    db.exec(`DROP TRIGGER ${trigger}`);
    for (let i = 1; i < rows; i++) {
      let row = notes.row(i);
      if (seen.has(row.title)) row = notes.makeUnique(row, i);
      seen.add(row.title);
      insert(row);
    }
    db.exec(`INSERT INTO ${notes.ftsTable} (${notes.ftsTable}) VALUES ('rebuild')`);
    db.exec(sql);
  })();
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
}

function runWorker(bin, driver, file, opts) {
  const args = [fileURLToPath(import.meta.url), "--worker", "--file", file, "--driver", driver];
  for (const key of ["rows", "queries", "calls"]) args.push(`--${key}`, String(opts[key]));
  const out = spawnSync(bin, args, { encoding: "utf8", cwd: here, maxBuffer: 64 * 1024 * 1024, timeout: 600_000 });
  if (out.status !== 0) throw new Error(`${bin} --driver ${driver}: exit ${out.status}\n${out.stderr}`);
  return JSON.parse(out.stdout);
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const fmt = (n) => Math.round(n).toLocaleString("en-US");
const ratio = (a, b) => `${(a / b).toFixed(2)}×`;

function render(runners, results, opts, machine) {
  const rows = runners.map((r) => {
    const runs = results[r.id];
    return {
      label: `${r.driver}, Node ${runs[0].node.slice(1)}`,
      sqlite: runs[0].sqliteVersion,
      storeP50: median(runs.map((x) => x.searchStore.p50)),
      storeP99: median(runs.map((x) => x.searchStore.p99)),
      toolP50: median(runs.map((x) => x.searchTool.p50)),
      toolP99: median(runs.map((x) => x.searchTool.p99)),
      getStore: median(runs.map((x) => x.getStore)),
      getTool: median(runs.map((x) => x.getTool)),
    };
  });
  const base = rows[0];
  const lines = [
    `Generated by \`bench/drivers.mjs\` on ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC: one notes file of ${fmt(opts.rows)} rows (the search benchmark's rows and queries), opened by each driver in turn, ${opts.rounds} rounds with the order alternating; each figure is the median of the rounds.`,
    "",
    `- Machine: ${machine}`,
    `- Search: ${opts.queries} timed queries per path after 30 warm-up ones, cycling through 120 distinct queries, limit 10; \`get_note\`: ${fmt(opts.calls)} calls one after another in three batches (their median) after ${fmt(Math.ceil(opts.calls / 2))} warm-up calls`,
    "",
    "| driver, Node (SQLite) | search store p50 ms | p99 ms | `search_notes` tool p50 ms | p99 ms | `getNote` store calls/s | `get_note` tool calls/s | tool calls/s × first row |",
    "|---|--:|--:|--:|--:|--:|--:|--:|",
    ...rows.map(
      (r) =>
        `| ${r.label} (${r.sqlite}) | ${ms(r.storeP50)} | ${ms(r.storeP99)} | ${ms(r.toolP50)} | ${ms(r.toolP99)} | ${fmt(r.getStore)} | ${fmt(r.getTool)} | ${(r.getTool / base.getTool).toFixed(2)}× |`,
    ),
    "",
    ...rows
      .slice(1)
      .map(
        (r) =>
          `- ${r.label} against ${base.label}: search p50 ${ratio(r.storeP50, base.storeP50)} the time (store), ${ratio(r.toolP50, base.toolP50)} (tool); \`get_note\` ${ratio(r.getStore, base.getStore)} the calls/s (store), ${ratio(r.getTool, base.getTool)} (tool).`,
      ),
    "",
    "Each row is a Node release and a driver together: the better-sqlite3 addon here is built for Node 20 only, and node:sqlite does not exist there, so the driver cannot be varied on one Node. The store columns are mostly SQLite and the driver; the tool columns add the MCP runtime, which runs faster on newer V8. Search hits and the note read are checked to be the same on every row.",
    "",
  ];
  return lines.join("\n");
}

async function parent(opts) {
  const here20 = defaultSqliteDriver();
  const runners = [{ id: "self", bin: process.execPath, driver: here20 ?? "node" }];
  // "-" leaves a line out.
  const pick = (given, found) => (given === "-" ? undefined : (given ?? found()));
  const node24 = pick(opts.node24, () => holderNode("node-lines", "@toolshed/node-lines-node24"));
  const node22 = pick(opts.node22, () => holderNode("conformance", "@toolshed/conformance-node22"));
  if (node24) runners.push({ id: "node24", bin: node24, driver: "node" });
  if (node22) runners.push({ id: "node22", bin: node22, driver: "node" });
  if (runners.length < 2) throw new Error("no Node 22 or 24 binary found: pass --node24 PATH or --node22 PATH");
  const dir = mkdtempSync(join(os.tmpdir(), "toolshed-drivers-"));
  const file = join(dir, "notes.db");
  let failed = false;
  try {
    process.stderr.write(`seeding ${fmt(opts.rows)} notes…\n`);
    await seed(file, opts.rows);
    const results = Object.fromEntries(runners.map((r) => [r.id, []]));
    for (let round = 0; round < opts.rounds; round++) {
      const order = round % 2 ? [...runners].reverse() : runners;
      for (const r of order) {
        const result = runWorker(r.bin, r.driver, file, opts);
        results[r.id].push(result);
        process.stderr.write(
          `round ${round + 1}/${opts.rounds} ${r.driver.padEnd(14)} ${result.node.padEnd(9)} search p50 ${ms(result.searchStore.p50)} ms, get_note ${fmt(result.getTool)} calls/s\n`,
        );
      }
    }
    // Same file, same queries: every driver must find the same notes in the same order.
    const reference = results.self[0];
    for (const r of runners) {
      for (const run of results[r.id]) {
        if (JSON.stringify(run.answers) !== JSON.stringify(reference.answers)) {
          process.stderr.write(`${r.driver} on ${run.node} found other notes than ${reference.driver}\n`);
          failed = true;
        }
        if (JSON.stringify(run.note) !== JSON.stringify(reference.note)) {
          process.stderr.write(`${r.driver} on ${run.node} read another groceries note\n`);
          failed = true;
        }
      }
    }
    const cpu = os.cpus()[0]?.model.trim() ?? "unknown CPU";
    const machine = `${cpu}, ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)} at the end`;
    const report = render(runners, results, opts, machine);
    process.stdout.write(`${report}\n`);
    const out = opts.out === "-" ? undefined : resolve(opts.out ?? join(ROOT, "docs/benchmarks-drivers.md"));
    if (out) writeFileSync(out, `# SQLite drivers side by side\n\n${report}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (failed) process.exit(1);
}

const opts = options();
if (opts.worker) {
  const result = await worker(opts);
  process.stdout.write(JSON.stringify(result));
} else {
  await parent(opts);
}
