#!/usr/bin/env node
// Entry point for the root npm scripts. It needs only Node 20 and npm: pnpm comes through npx.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const PNPM = ["-y", "pnpm@12.4.2"];
const isCI = process.env.CI === "true" || process.env.CI === "1";

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit", ...options });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

function must(step, command, args) {
  process.stderr.write(`\n> ${step}\n`);
  const status = run(command, args);
  if (status !== 0) {
    process.stderr.write(`\n${step} failed (exit ${status}).\n`);
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

function test(extra) {
  install();
  build();
  pnpm("typecheck", "exec", "turbo", "run", "typecheck", "--output-logs=errors-only");
  pnpm("lint", "exec", "biome", "check", ".");
  pnpm("package checks (publint, arethetypeswrong)", "exec", "node", "scripts/check-packages.mjs");
  // Every benchmark contender must still answer correctly (speed is not asserted here).
  pnpm("benchmark harness check (bench --quick)", "--filter", "./bench", "run", "bench:quick");
  const report = join(root, ".vitest-report.json");
  rmSync(report, { force: true });
  process.stderr.write("\n> tests\n");
  const status = run("npx", [
    ...PNPM,
    "exec",
    "vitest",
    "run",
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${report}`,
    ...extra,
  ]);
  const counts = summary(report);
  if (!counts) {
    process.stdout.write("0 passed, 1 failed\n");
    process.exit(status || 1);
  }
  if (status !== 0 && counts.failed === 0) counts.failed = 1;
  process.stdout.write(`${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
  process.exit(counts.failed > 0 ? 1 : status);
}

/** The value of `--name VALUE` or `--name=VALUE` in args, if given. */
function flag(args, name) {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === `--${name}`) return args[i + 1];
    if (args[i]?.startsWith(`--${name}=`)) return args[i].slice(name.length + 3);
  }
  return undefined;
}

// The main job: the HTTP server with all three packs on ./.toolshed/demo.db, seeded with demo data.
async function start(args) {
  const cli = join(root, "apps/http-server/dist/cli.js");
  const child = spawn(process.execPath, [cli, "--db", join(root, ".toolshed/demo.db"), "--demo", ...args], {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit"],
  });
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
  const host = flag(args, "host") ?? "127.0.0.1";
  const port = flag(args, "port") ?? "3000";
  const shown = host.includes(":") ? `[${host}]` : host;
  const base = `http://${shown === "0.0.0.0" ? "127.0.0.1" : shown}:${port}`;
  let exited = false;
  const done = new Promise((resolve) =>
    child.on("exit", (code, signal) => {
      exited = true;
      resolve(code ?? (signal ? 0 : 1));
    }),
  );
  for (let i = 0; i < 600 && !exited; i++) {
    try {
      if ((await fetch(`${base}/readyz`)).ok) {
        process.stdout.write(
          [
            "",
            `Toolshed is serving notes, tickets and crm (demo data in .toolshed/demo.db) at ${base}/mcp`,
            "Try it with the MCP Inspector:",
            `  npx -y @modelcontextprotocol/inspector@2.12.0 --cli ${base}/mcp --transport http --method tools/list`,
            `  npx -y @modelcontextprotocol/inspector@2.12.0 --cli ${base}/mcp --transport http --method tools/call --tool-name get_note --tool-arg title=groceries`,
            "or open the Inspector UI (npx -y @modelcontextprotocol/inspector@2.12.0) and connect to that URL with Streamable HTTP.",
            "Stop with Ctrl+C.",
            "",
          ].join("\n"),
        );
        break;
      }
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  process.exit(await done);
}

const [command = "test", ...rest] = process.argv.slice(2);
switch (command) {
  case "test":
    test(rest);
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
    await start(rest);
    break;
  default:
    process.stderr.write(`Unknown command "${command}". Use one of: start, test, build, typecheck, lint, bench.\n`);
    process.exit(2);
}
