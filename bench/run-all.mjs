#!/usr/bin/env node
// `npm run bench`: every benchmark side by side in one run (HTTP throughput, latency and memory;
// stdio cold start and throughput; in-process overhead; search at scale; recovery from wrong
// calls), writing docs/benchmarks.md with an SVG chart per benchmark in docs/benchmarks/.
//
//   node run-all.mjs [--quick] [--only http,stdio,inprocess,search,recovery] [--rounds N] [--seconds N]
//                    [--connections N] [--search-rows N] [--out FILE|-] [--previous FILE|-]
//   node run-all.mjs recovery [--quick] [--doc FILE|-]   (only the recovery benchmark: bench/recovery/)
//
// `--quick` (CI) runs everything briefly and writes no file unless --out is given. Any wrong
// answer from any contender, or a contender that does not start, makes the exit code 1.
// `--previous` (default docs/benchmarks.md, read before anything runs) is the report whose HTTP
// figures the 2025-era rows are compared with.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import { basename, dirname, extname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { openPacks } from "@toolshed/packs";
import { readPreviousHttp } from "./harness/previous.mjs";
import { PINNING, pinSelf } from "./harness/proc.mjs";
import { runHttpBench } from "./http.mjs";
import { runInProcessBench } from "./inprocess.mjs";
import { renderRecovery, replaceSection, sectionOf } from "./recovery/report.mjs";
import { chartWriter, recoveryMain, runRecovery } from "./recovery/run.mjs";
import { legacyComparison, REGRESSION_FLOOR, renderReport, targets } from "./render.mjs";
import { runStdioBench } from "./stdio.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const PARTS = ["http", "stdio", "inprocess", "search", "recovery"];

function readOptions() {
  const { values } = parseArgs({
    options: {
      quick: { type: "boolean", default: false },
      only: { type: "string", default: PARTS.join(",") },
      rounds: { type: "string" },
      seconds: { type: "string" },
      connections: { type: "string", default: "20" },
      "search-rows": { type: "string" },
      out: { type: "string" },
      previous: { type: "string" },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(
      "Usage: node run-all.mjs [recovery] [--quick] [--only http,stdio,inprocess,search,recovery] [--rounds N] [--seconds N] [--connections N] [--search-rows N] [--out FILE|-] [--previous FILE|-]\n",
    );
    process.exit(0);
  }
  const int = (name, text, fallback) => {
    if (text === undefined) return fallback;
    const n = Number(text);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer (got ${text})`);
    return n;
  };
  const only = values.only.split(",").map((p) => p.trim());
  for (const p of only) if (!PARTS.includes(p)) throw new Error(`--only takes some of ${PARTS.join(",")} (got ${p})`);
  const quick = values.quick;
  const defaultOut = quick ? undefined : resolve(here, "../docs/benchmarks.md");
  return {
    quick,
    only,
    rounds: int("rounds", values.rounds, quick ? 1 : 3),
    seconds: int("seconds", values.seconds, quick ? 1 : 5),
    warmupSeconds: quick ? 0 : 1,
    connections: int("connections", values.connections, 20),
    starts: quick ? 3 : 20,
    stdioCalls: quick ? 200 : 5000,
    inprocessCalls: quick ? 300 : 5000,
    searchRows: values["search-rows"],
    out: values.out === "-" ? undefined : values.out ? resolve(values.out) : defaultOut,
    previous: values.previous === "-" ? undefined : resolve(values.previous ?? join(here, "../docs/benchmarks.md")),
  };
}

function versionOf(name, entry = name) {
  // Walk up from an entry point: some exports maps hide package.json (and the SDK has no "." export),
  // and some dist folders have their own.
  try {
    let dir = dirname(require.resolve(entry));
    for (let i = 0; i < 6; i++, dir = dirname(dir)) {
      try {
        const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
        if (pkg.name === name) return pkg.version;
      } catch {
        // no package.json at this level
      }
    }
  } catch {
    // not resolvable from here
  }
  return "?";
}

function machineInfo() {
  return {
    date: `${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC`,
    cpu: os.cpus()[0]?.model?.trim() ?? "unknown CPU",
    cores: os.availableParallelism(),
    memGb: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    loadStart: os.loadavg()[0].toFixed(1),
    pinning: PINNING,
    versions: {
      toolshed: versionOf("@toolshed/http-server"),
      sdk: versionOf("@modelcontextprotocol/sdk", "@modelcontextprotocol/sdk/types.js"),
      sdk2: versionOf("@modelcontextprotocol/server"),
      fastmcp: versionOf("fastmcp"),
      autocannon: versionOf("autocannon"),
    },
  };
}

/** The search benchmark (owned by bench/search.mjs), its report into a temporary file. */
function runSearch(options, tmp, log) {
  const out = join(tmp, "search.md");
  const args = options.quick ? ["--quick", "--rows", "2000", "--queries", "20"] : [];
  if (options.searchRows) args.push("--rows", options.searchRows);
  return new Promise((resolve) => {
    log(`search: node search.mjs ${args.join(" ")}`);
    const child = spawn(process.execPath, [join(here, "search.mjs"), ...args, "--out", out], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let stdout = "";
    child.stdout.on("data", (d) => {
      stdout = (stdout + d).slice(-4000);
    });
    child.on("exit", (code) => {
      if (code !== 0) return resolve({ args, failure: `search.mjs exited with ${code}: ${stdout.slice(-1000)}` });
      resolve({ args, report: readFileSync(out, "utf8") });
    });
  });
}

async function main() {
  const options = readOptions();
  const log = (line) => process.stderr.write(`${line}\n`);
  const started = Date.now();
  const machine = machineInfo();
  // This process is the load generator and client: core 1; servers go to core 0.
  pinSelf(1);
  const tmp = mkdtempSync(join(os.tmpdir(), "toolshed-bench-"));
  const failures = [];
  // Before anything runs or is written: the figures this run's 2025-era rows are compared with.
  const previous = options.previous ? readPreviousHttp(options.previous) : undefined;
  log(
    previous
      ? `previous figures: ${previous.file} (${previous.date}${previous.quick ? ", quick run" : ""})`
      : `no previous figures${options.previous ? ` in ${options.previous}` : ""}`,
  );
  const results = { machine, options, previous, failures };
  try {
    const db = join(tmp, "notes.db");
    const seeded = await openPacks({ db, packs: ["notes"], demo: true });
    await seeded.close();
    if (options.only.includes("http")) {
      results.http = await runHttpBench({ db, ...options, log });
      failures.push(...results.http.failures);
    }
    if (options.only.includes("stdio")) {
      results.stdio = await runStdioBench({
        db,
        starts: options.starts,
        rounds: options.rounds,
        calls: options.stdioCalls,
        window: 32,
        log,
      });
      failures.push(...results.stdio.failures);
    }
    if (options.only.includes("inprocess")) {
      // A full round of warm-up: with less, the JIT was still settling and rounds differed by 2x.
      const warmup = options.inprocessCalls;
      results.inp = await runInProcessBench({
        db,
        rounds: Math.max(2, options.rounds),
        calls: options.inprocessCalls,
        warmup,
        log,
      });
      failures.push(...results.inp.failures);
    }
    if (options.only.includes("recovery")) {
      results.recovery = await runRecovery({ log });
      failures.push(...results.recovery.failures);
    }
    if (options.only.includes("search")) {
      results.search = await runSearch(options, tmp, log);
      if (results.search.failure) failures.push(results.search.failure);
    } else {
      results.search = { why: "left out with --only" };
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  machine.loadEnd = os.loadavg()[0].toFixed(1);

  const comparison = legacyComparison(results.http, previous);
  if (comparison.length > 0) {
    const note = options.quick || previous.quick ? ", quick figures: not comparable" : "";
    log(`2025-era rows against ${previous.file} (${previous.date}${note}):`);
  }
  for (const r of comparison) {
    const verdict = r.regressed && !options.quick && !previous.quick ? ` REGRESSED (below ${REGRESSION_FLOOR}×)` : "";
    log(
      `  ${r.tool.padEnd(8)} ${r.label.padEnd(36)} ${Math.round(r.now)} vs ${Math.round(r.before.median)} req/s: ${r.ratio.toFixed(3)}×${verdict}`,
    );
  }
  for (const t of targets(results)) {
    const verdict = t.met === undefined ? "n/a   " : t.met ? "met   " : "MISSED";
    log(`target ${verdict} ${t.target.replace(/`/g, "")}: ${t.figure}`);
  }
  if (options.out) {
    // Charts go in a folder named after the page: docs/benchmarks.md -> docs/benchmarks/*.svg.
    const chartDir = join(dirname(options.out), basename(options.out, extname(options.out)));
    mkdirSync(chartDir, { recursive: true });
    const addChart = (name, svg) => {
      writeFileSync(join(chartDir, `${name}.svg`), svg);
      return relative(dirname(options.out), join(chartDir, `${name}.svg`));
    };
    // The recovery section: this run's, else the one the page had (it is also written on its own).
    const before = existsSync(options.out) ? sectionOf(readFileSync(options.out, "utf8")) : undefined;
    const recovery = results.recovery ? renderRecovery(results.recovery, { chart: chartWriter(options.out) }) : before;
    const report = renderReport(results, addChart);
    writeFileSync(options.out, recovery ? replaceSection(report, recovery) : report);
    log(`wrote ${options.out} and its charts in ${chartDir}`);
  } else {
    // Rendered all the same, so the quick check also proves the report code runs.
    renderReport(results, () => undefined);
    if (results.recovery) renderRecovery(results.recovery, { chart: () => undefined });
    log("no report written (quick mode; pass --out FILE to write one)");
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  if (failures.length > 0) {
    log(`\n${failures.length} failure(s) in ${seconds} s:\n${failures.map((f) => `- ${f}`).join("\n")}`);
    process.exit(1);
  }
  log(`every contender answered correctly (${seconds} s)`);
}

const run =
  process.argv[2] === "recovery" ? () => recoveryMain(process.argv.slice(3)).then((code) => process.exit(code)) : main;
run().catch((error) => {
  process.stderr.write(`run-all: ${error.stack ?? error}\n`);
  process.exit(1);
});
