#!/usr/bin/env node
// Entry point for the root npm scripts. It needs only Node 20 and npm: pnpm comes through npx.
import { spawnSync } from "node:child_process";
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
  case "start": {
    install();
    build();
    const cli = join(root, "apps/http-server/dist/cli.js");
    if (!existsSync(cli)) {
      process.stderr.write("The HTTP server app (apps/http-server) is not part of this checkout yet.\n");
      process.exit(1);
    }
    process.exit(run(process.execPath, [cli, "--db", ".toolshed/demo.db", "--demo", ...rest]));
    break;
  }
  default:
    process.stderr.write(`Unknown command "${command}". Use one of: start, test, build, typecheck, lint, bench.\n`);
    process.exit(2);
}
