#!/usr/bin/env node
// Entry point for the root npm scripts. It needs only Node 20 and npm: pnpm comes through npx.
import { spawn, spawnSync } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { constants as osConstants } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { INSPECTOR, inspectorNodeNote, inspectorNodeOk } from "./inspector.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const PNPM = ["-y", "pnpm@12.4.2"];
const isCI = process.env.CI === "true" || process.env.CI === "1";

// npm's and pnpm's "Update available … curl … | sh" banners are not ours to print.
const QUIET_ENV = { ...process.env, npm_config_update_notifier: "false" };

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit", env: QUIET_ENV, ...options });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

/** Wall time of each step of this command, for the table `npm test` ends with. */
const steps = [];
const began = Date.now();

/** "1m 05s", "42s" */
function duration(ms) {
  const seconds = Math.round(ms / 1000);
  return seconds >= 60 ? `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, "0")}s` : `${seconds}s`;
}

function stepTable() {
  const rows = [...steps, { step: "total", ms: Date.now() - began }];
  const width = Math.max(...rows.map((row) => row.step.length));
  return `\nSteps and their wall time:\n${rows.map((row) => `  ${row.step.padEnd(width)}  ${duration(row.ms).padStart(7)}${row.note ? `  (${row.note})` : ""}`).join("\n")}\n`;
}

/** Process groups started beside the others; stopped when this process ends. */
const groups = new Set();
process.on("exit", () => {
  for (const pid of groups) stopGroup(pid);
});

function stopGroup(pid) {
  try {
    process.kill(-pid, "SIGTERM");
  } catch {}
}

function must(step, command, args) {
  process.stderr.write(`\n> ${step}\n`);
  const started = Date.now();
  const status = run(command, args);
  steps.push({ step, ms: Date.now() - started });
  if (status !== 0) {
    process.stderr.write(`\n${step} failed (exit ${status}).\n`);
    if (steps.length > 1) process.stderr.write(stepTable());
    process.exit(status);
  }
}

function pnpm(step, ...args) {
  must(step, "npx", [...PNPM, ...args]);
}

function install() {
  const frozen = existsSync(join(root, "pnpm-lock.yaml")) && isCI ? ["--frozen-lockfile"] : [];
  pnpm("install dependencies", "install", ...frozen);
}

/** Builds every package, or with `only` the named one and what it needs. */
function build(only) {
  const filter = only ? [`--filter=${only}...`] : [];
  pnpm("build packages", "exec", "turbo", "run", "build", ...filter, "--output-logs=errors-only");
}

function summary(reportPath) {
  if (!existsSync(reportPath)) return undefined;
  const report = JSON.parse(readFileSync(reportPath, "utf8"));
  return {
    passed: report.numPassedTests ?? 0,
    failed: (report.numFailedTests ?? 0) + (report.numRuntimeErrorTestSuites ?? 0),
    skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0),
  };
}

function vitestArgs(report, extra) {
  return [
    ...PNPM,
    "exec",
    "vitest",
    "run",
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${report}`,
    ...extra,
  ];
}

/**
 * One step without blocking this process, timed into the table; resolves with its exit status.
 * `out`: a file descriptor for its output, in a process group of its own (stopped with this process).
 */
function step(name, command, args, { out, env, note } = {}) {
  const started = Date.now();
  if (out === undefined) process.stderr.write(`\n> ${name}\n`);
  else writeSync(out, `\n> ${name}\n`);
  const child = spawn(command, args, {
    cwd: root,
    env: env === undefined ? QUIET_ENV : { ...QUIET_ENV, ...env },
    stdio: out === undefined ? "inherit" : ["ignore", out, out],
    detached: out !== undefined,
  });
  if (out !== undefined) groups.add(child.pid);
  return new Promise((resolve) => {
    const done = (status) => {
      groups.delete(child.pid);
      steps.push({ step: name, ms: Date.now() - started, note });
      resolve(status);
    };
    child.once("error", (error) => {
      process.stderr.write(`${name}: ${error.message}\n`);
      done(1);
    });
    child.once("exit", (code) => done(code ?? 1));
  });
}

/**
 * What runs beside the tests of the packages and apps, one after another, its output into a log
 * shown at the end: the static checks, then the outside-in tests (vitest.config.ts's "outside-in"
 * lane: packed tarballs installed into fresh npm projects, the scaffold, other Node lines, the
 * conformance suite), which mostly wait on npm and on child processes. A check that fails ends this side; the tests still end.
 */
async function beside(log, report) {
  const out = openSync(log, "w");
  const from = `beside the tests from ${duration(Date.now() - began)}`;
  try {
    const checks = [
      ["typecheck", "exec", "turbo", "run", "typecheck", "--output-logs=errors-only"],
      ["lint", "exec", "biome", "check", "."],
      ["package checks (publint, arethetypeswrong)", "exec", "node", "scripts/check-packages.mjs"],
      // Every benchmark contender must still answer correctly (speed is not asserted here).
      ["benchmark harness check (bench --quick)", "--filter", "./bench", "run", "bench:quick"],
    ];
    for (const [name, ...args] of checks) {
      const status = await step(name, "npx", [...PNPM, ...args], { out, note: from });
      if (status !== 0) return { status, failed: name };
    }
    const status = await step("outside-in tests", "npx", vitestArgs(report, []), {
      out,
      env: { TOOLSHED_TEST_LANE: "outside-in" },
      note: from,
    });
    return { status, failed: status === 0 ? undefined : "outside-in tests" };
  } finally {
    closeSync(out);
  }
}

async function test(extra) {
  install();
  build();
  const report = join(root, ".vitest-report.json");
  rmSync(report, { force: true });
  if (extra.length > 0) {
    // A filter (npm test -- <file or name>): only the matching tests, against the sources.
    process.stderr.write(
      "\n> tests matching the filter (npm test without one also runs typecheck, lint and the checks)\n",
    );
    const status = run("npx", vitestArgs(report, extra));
    finish([summary(report)], status);
  }
  await packOnce();
  const log = join(root, ".npm-test-beside.log");
  const besideReport = join(root, ".vitest-report.outside-in.json");
  rmSync(besideReport, { force: true });
  process.stderr.write(
    `\n> beside the tests: typecheck, lint, package checks, bench --quick, then the outside-in tests (output in ${relative(root, log)}, shown at the end)\n`,
  );
  // The side runs in process groups of their own, which a Ctrl+C at the terminal does not reach:
  // exiting stops them ("exit" above).
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.on(signal, () => process.exit(128 + (osConstants.signals[signal] ?? 0)));
  }
  const side = beside(log, besideReport);
  const status = await step("tests (the rest)", "npx", vitestArgs(report, []), {
    env: { TOOLSHED_TEST_LANE: "rest" },
  });
  const other = await side;
  process.stderr.write(`\n> beside the tests: their output (${relative(root, log)})\n`);
  process.stderr.write(readFileSync(log, "utf8"));
  if (other.failed) process.stderr.write(`\n${other.failed} failed (exit ${other.status}).\n`);
  // A check that failed has no tests to count: it counts as one failure.
  const counts = [
    summary(report),
    other.failed && other.failed !== "outside-in tests" ? { passed: 0, failed: 1, skipped: 0 } : summary(besideReport),
  ];
  finish(counts, status || other.status);
}

/** Tarballs for the package checks and the outside-in tests, packed once (release/scripts/lib/pack.mjs). */
async function packOnce() {
  const name = "pack the public packages";
  process.stderr.write(`\n> ${name}\n`);
  const started = Date.now();
  try {
    const { packedTarballs } = await import("../release/scripts/lib/pack.mjs");
    packedTarballs();
  } catch (error) {
    process.stderr.write(`\n${name} failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
  steps.push({ step: name, ms: Date.now() - started });
}

/** The step table, then the one line CI reads: the totals of every vitest report. */
function finish(reports, status) {
  process.stdout.write(stepTable());
  if (reports.some((counts) => !counts)) {
    const found = reports.filter(Boolean);
    const passed = found.reduce((sum, counts) => sum + counts.passed, 0);
    const failed = found.reduce((sum, counts) => sum + counts.failed, 0);
    process.stdout.write(`${passed} passed, ${failed + 1} failed\n`);
    process.exit(status || 1);
  }
  const counts = reports.reduce((sum, c) => ({
    passed: sum.passed + c.passed,
    failed: sum.failed + c.failed,
    skipped: sum.skipped + c.skipped,
  }));
  if (status !== 0 && counts.failed === 0) counts.failed = 1;
  process.stdout.write(`${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
  process.exit(counts.failed > 0 ? 1 : status);
}

// The main job: the HTTP server with all three packs on ./.toolshed/demo.db, seeded with demo data.
// "Serving" is printed only once the server process started here says so over its IPC channel (a
// port that answers may belong to another program); signals reach it, and npm start exits after it.
async function serve(args, label) {
  const entry = join(root, "apps/http-server/dist/index.js");
  if (!existsSync(entry)) {
    process.stderr.write(`${label}: apps/http-server is not built; run npm run build (npm start builds it).\n`);
    process.exit(1);
  }
  const db = join(root, ".toolshed/demo.db");
  const child = spawn(process.execPath, [join(root, "scripts/start-server.mjs"), "--db", db, "--demo", ...args], {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  let signalled = 0;
  const stop = (signal) => {
    signalled += 1;
    // The first asks for a graceful stop (calls in flight finish); a second means now.
    child.kill(signalled > 1 ? "SIGKILL" : signal);
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => stop(signal));
  // Killing the npm process ends the shell npm runs this script in, but no signal reaches this
  // process: it is only left with a new parent. Take that as a hangup.
  const parent = process.ppid;
  const orphaned = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(orphaned);
    stop("SIGHUP");
  }, 250);
  orphaned.unref();
  let failure;
  let serving = false;
  child.on("message", (message) => {
    if (message?.type === "failed") failure = String(message.message);
    if (message?.type === "listening" && !serving) {
      serving = true;
      process.stdout.write(servingText(message));
    }
  });
  // "close" comes after the last message from the channel, "exit" may come before it.
  const [code, signal] = await new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (...result) => resolve(result));
  });
  if (failure !== undefined) {
    process.stderr.write(
      `\n${label}: toolshed-http could not start: ${failure}\n` +
        `Flags after -- reach the server, for example: ${label} -- --port 4000 (${label} -- --help lists them).\n`,
    );
  } else if (signal) {
    process.stderr.write(`\n${label}: toolshed-http was killed by ${signal}\n`);
  } else if (code !== 0 && signalled === 0) {
    process.stderr.write(`\n${label}: toolshed-http exited with code ${code}\n`);
  }
  process.exit(code ?? 128 + (osConstants.signals[signal] ?? 0));
}

/** "notes, tickets and crm" */
function listed(names) {
  return names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names.at(-1)}` : (names[0] ?? "no packs");
}

/** What a user sees once the server listens: where, and how to try it. */
function servingText({ url, pid, packs, database }) {
  const shown = new URL(url);
  // A wildcard address is where the server listens, not one to connect to.
  if (shown.hostname === "0.0.0.0") shown.hostname = "127.0.0.1";
  if (shown.hostname === "[::]") shown.hostname = "[::1]";
  const mcp = shown.href;
  const inspector = `npx -y ${INSPECTOR.spec}`;
  return [
    "",
    `Toolshed is serving ${listed(packs)} (demo data in ${database.startsWith(root) ? relative(root, database) : database}) at ${mcp} (pid ${pid})`,
    "Try it with the MCP Inspector:",
    `  ${inspector} --cli ${mcp} --transport http --method tools/list`,
    ...(packs.includes("notes")
      ? [
          `  ${inspector} --cli ${mcp} --transport http --method tools/call --tool-name get_note --tool-arg title=groceries`,
        ]
      : []),
    `or open the Inspector UI (${inspector}) and connect to that URL with Streamable HTTP.`,
    ...(inspectorNodeOk() ? [] : [inspectorNodeNote()]),
    "Stop with Ctrl+C.",
    "",
  ].join("\n");
}

const [command = "test", ...rest] = process.argv.slice(2);
switch (command) {
  case "test":
    await test(rest);
    break;
  case "build":
    install();
    build();
    break;
  case "typecheck":
    install();
    build();
    pnpm("typecheck", "exec", "turbo", "run", "typecheck");
    break;
  case "lint":
    install();
    pnpm("lint", "exec", "biome", "check", ".");
    break;
  case "bench":
    install();
    build();
    pnpm("bench", "--filter", "./bench", "run", "bench", ...rest);
    break;
  case "start":
    install();
    // Only the server and the packages it runs on: not the benchmarks or the test harnesses.
    build("@toolshed/http-server");
    await serve(rest, "npm start");
    break;
  case "pack-local":
    install();
    build();
    must("pack", process.execPath, [join(root, "scripts/pack.mjs"), ...rest]);
    break;
  case "serve":
    // What start runs after install and build.
    await serve(rest, "npm run serve");
    break;
  default:
    process.stderr.write(
      `Unknown command "${command}". Use one of: start, serve, test, build, typecheck, lint, bench, pack-local.\n`,
    );
    process.exit(2);
}
