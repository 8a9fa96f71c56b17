#!/usr/bin/env node
// Entry point for the root npm scripts. It needs only Node 20 and npm: pnpm comes through npx.
import { spawn, spawnSync } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync, rmSync } from "node:fs";
import { constants as osConstants } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { INSPECTOR, inspectorNodeNote, inspectorNodeOk } from "./inspector.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const PNPM = ["-y", "pnpm@12.4.2"];
const isCI = process.env.CI === "true" || process.env.CI === "1";

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit", ...options });
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

/** Steps that run beside the others; stopped when a step fails or this process ends. */
const background = new Set();
process.on("exit", () => {
  for (const child of background) child.stop();
});

function must(step, command, args) {
  process.stderr.write(`\n> ${step}\n`);
  const started = Date.now();
  const status = run(command, args);
  steps.push({ step, ms: Date.now() - started });
  if (status !== 0) {
    process.stderr.write(`\n${step} failed (exit ${status}).\n`);
    for (const child of background) child.stop();
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

function build() {
  pnpm("build packages", "exec", "turbo", "run", "build", "--output-logs=errors-only");
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
 * The outside-in projects (packed tarballs installed into fresh npm projects, the scaffold, other
 * Node lines) mostly wait on npm and on child processes: they run in a vitest of their own, beside
 * the other steps, from right after the build. Their output is kept in a log and shown when they end.
 */
const OUTSIDE_IN = "release, node-lines";

function startOutsideIn() {
  const report = join(root, ".vitest-report.outside-in.json");
  const log = join(root, ".vitest-outside-in.log");
  rmSync(report, { force: true });
  const out = openSync(log, "w");
  const started = Date.now();
  process.stderr.write(
    `\n> outside-in tests (${OUTSIDE_IN}), beside the next steps; their output: ${relative(root, log)}\n`,
  );
  // vitest.config.ts picks its projects by TOOLSHED_TEST_LANE.
  const child = spawn("npx", vitestArgs(report, []), {
    cwd: root,
    env: { ...process.env, TOOLSHED_TEST_LANE: "outside-in" },
    stdio: ["ignore", out, out],
    // Its own process group, so that stopping it stops pnpm, vitest and the installs under it.
    detached: true,
  });
  closeSync(out);
  let stopped = false;
  const done = new Promise((resolve) => {
    child.once("error", (error) => resolve({ status: 1, error }));
    child.once("exit", (code, signal) => resolve({ status: code ?? 1, signal }));
  });
  const handle = {
    report,
    log,
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {}
    },
    async wait() {
      const result = await done;
      background.delete(handle);
      steps.push({
        step: "outside-in tests",
        ms: Date.now() - started,
        note: `beside the others from ${duration(started - began)}`,
      });
      return result;
    },
  };
  background.add(handle);
  return handle;
}

async function test(extra) {
  install();
  build();
  if (extra.length > 0) {
    // A filter (npm test -- <file or name>): only the matching tests, against the sources.
    process.stderr.write(
      "\n> tests matching the filter (npm test without one also runs typecheck, lint and the checks)\n",
    );
    const report = join(root, ".vitest-report.json");
    rmSync(report, { force: true });
    const status = run("npx", vitestArgs(report, extra));
    finish([summary(report)], status);
  }
  await packOnce();
  const outsideIn = startOutsideIn();
  // The outside-in tests run in their own process group, which a Ctrl+C at the terminal does not reach.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.on(signal, () => {
      outsideIn.stop();
      process.exit(128 + (osConstants.signals[signal] ?? 0));
    });
  }
  pnpm("typecheck", "exec", "turbo", "run", "typecheck", "--output-logs=errors-only");
  pnpm("lint", "exec", "biome", "check", ".");
  pnpm("package checks (publint, arethetypeswrong)", "exec", "node", "scripts/check-packages.mjs");
  // Every benchmark contender must still answer correctly (speed is not asserted here).
  pnpm("benchmark harness check (bench --quick)", "--filter", "./bench", "run", "bench:quick");
  const report = join(root, ".vitest-report.json");
  rmSync(report, { force: true });
  process.stderr.write("\n> tests\n");
  const started = Date.now();
  const status = run("npx", vitestArgs(report, []), { env: { ...process.env, TOOLSHED_TEST_LANE: "rest" } });
  steps.push({ step: "tests (the rest)", ms: Date.now() - started });
  const other = await outsideIn.wait();
  process.stderr.write(`\n> outside-in tests: their output (${relative(root, outsideIn.log)})\n`);
  process.stderr.write(readFileSync(outsideIn.log, "utf8"));
  finish([summary(report), summary(outsideIn.report)], status || other.status);
}

/** Tarballs for the package checks and the outside-in tests, packed once (release/scripts/lib/pack.mjs). */
async function packOnce() {
  const step = "pack the public packages";
  process.stderr.write(`\n> ${step}\n`);
  const started = Date.now();
  try {
    const { packedTarballs } = await import("../release/scripts/lib/pack.mjs");
    packedTarballs();
  } catch (error) {
    process.stderr.write(`\n${step} failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
  steps.push({ step, ms: Date.now() - started });
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
async function serve(args) {
  const entry = join(root, "apps/http-server/dist/index.js");
  if (!existsSync(entry)) {
    process.stderr.write("npm start: apps/http-server is not built; run npm run build (npm start builds it).\n");
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
      `\nnpm start: toolshed-http could not start: ${failure}\n` +
        "Flags after -- reach the server, for example: npm start -- --port 4000 (npm start -- --help lists them).\n",
    );
  } else if (signal) {
    process.stderr.write(`\nnpm start: toolshed-http was killed by ${signal}\n`);
  } else if (code !== 0 && signalled === 0) {
    process.stderr.write(`\nnpm start: toolshed-http exited with code ${code}\n`);
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
    build();
    await serve(rest);
    break;
  case "pack-local":
    install();
    build();
    must("pack", process.execPath, [join(root, "scripts/pack.mjs"), ...rest]);
    break;
  case "serve":
    // What start runs after install and build.
    await serve(rest);
    break;
  default:
    process.stderr.write(
      `Unknown command "${command}". Use one of: start, serve, test, build, typecheck, lint, bench, pack-local.\n`,
    );
    process.exit(2);
}
