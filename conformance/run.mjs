// Runs the official MCP conformance suite (@modelcontextprotocol/conformance) over Streamable HTTP.
//
//   node run.mjs                              fixture pack: every requirement set the suite ships, each
//                                             against the fixture served the way its wire needs
//                                             (2026-07-28 stateless, 2025-11-25 sessions)
//   node run.mjs --requirements 2026-07-28    only this requirement set (repeat for several)
//   node run.mjs --scenario <name> ...        fixture pack: only these scenarios, at each selected
//                                             revision whose requirement set lists them
//   node run.mjs --url <url>                  a running server: the generic scenarios of each revision
//   node run.mjs --tasks                      the tasks extension's scenarios (io.modelcontextprotocol/tasks,
//                                             off the spec timeline, so run with the suite's --force)
//                                             against the tasks fixture; with --url, against that server
//   options: --output-dir <dir> (keep results there), --verbose (stream the suite's own output)
//
// Exits 1 when a scored scenario fails, 2 on bad usage or when no Node 22 is found for the suite.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { parse as parseYaml } from "yaml";

const require = createRequire(import.meta.url);

/** What every MCP server should pass, whatever its tools, per revision: run against a real server with --url. */
export const GENERIC_SCENARIOS = {
  "2026-07-28": ["server-stateless", "tools-list", "dns-rebinding-protection", "sep-2164-resource-not-found"],
  "2025-11-25": ["server-initialize", "ping", "tools-list", "logging-set-level", "dns-rebinding-protection"],
};

/**
 * Checks that exercise a requirement through a diagnostic tool only a conformance fixture has, by
 * scenario and check id, with the tool each needs. Against a server without the tool the suite
 * cannot exercise the requirement and reports a FAILURE marked `details.untestable`. Only against a
 * --url server, and only while that server does not list the tool, exactly that failure of exactly
 * these checks is allowed; any other outcome of them counts as the suite says.
 */
export const NEEDS_FIXTURE_TOOL = {
  "server-stateless": {
    "sep-2575-server-rejects-undeclared-capability": "test_missing_capability",
    "sep-2575-missing-capability-http-400": "test_missing_capability",
    "sep-2575-http-server-no-independent-requests-on-stream": "test_streaming_elicitation",
    "sep-2575-server-no-log-without-loglevel": "test_logging_tool",
  },
};

/** The scenarios of the tasks extension (SEP-2663) in this suite; every one is scored here. */
export const TASKS_SCENARIOS = [
  "tasks-lifecycle",
  "tasks-capability-negotiation",
  "tasks-wire-fields",
  "tasks-request-state-removal",
  "tasks-mrtr-input",
  "tasks-request-headers",
  "tasks-dispatch-and-envelope",
  "tasks-status-notifications",
  "tasks-required-task-error",
  "tasks-mrtr-composition",
];

/** The fixture is served the way a revision's wire needs: sessions for 2025 (server-to-client requests). */
const fixtureModeFor = (revision) => (revision < "2026-07-28" ? "sessions" : "stateless");

const SUITE_TIMEOUT_MS = 10 * 60_000;
const MODERN_VERSION = "2026-07-28";

const out = (line = "") => process.stdout.write(`${line}\n`);

function suiteDir() {
  return dirname(require.resolve("@modelcontextprotocol/conformance/package.json"));
}

/** The suite needs Node 22 (it imports fs.globSync): the `node` npm package, or this Node if it is 22 or later. */
function suiteRuntime() {
  try {
    // The binary sits one package down, so that `node` in this package's scripts stays the caller's Node.
    const holder = createRequire(require.resolve("@toolshed/conformance-node22/package.json"));
    const manifest = holder.resolve("node/package.json");
    const bin = join(dirname(manifest), JSON.parse(readFileSync(manifest, "utf8")).bin.node);
    const version = spawnSync(bin, ["--version"], { encoding: "utf8" }).stdout?.trim() ?? "";
    if (Number(version.slice(1).split(".")[0]) >= 22) return { command: bin, label: `node ${version} (npm)` };
  } catch {
    // no `node` package, or its install script did not run: fall through
  }
  if (Number(process.versions.node.split(".")[0]) >= 22) {
    return { command: process.execPath, label: `node v${process.versions.node}` };
  }
  return undefined;
}

/** The requirement sets the suite ships (requirements/<revision>.yaml): scored and not-scored server scenarios. */
export function requirementSets() {
  const dir = join(suiteDir(), "requirements");
  const sets = new Map();
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .reverse()) {
    const doc = parseYaml(readFileSync(join(dir, file), "utf8"));
    const revision = file.slice(0, -".yaml".length);
    sets.set(revision, {
      revision,
      scored: doc.server ?? [],
      notScored: (doc.not_scored ?? [])
        .filter((entry) => entry.leg === "server")
        .map((entry) => ({ name: entry.scenario, reason: entry.reason })),
    });
  }
  return sets;
}

/** Runs the suite's CLI once; its output goes to `log` (and to the terminal with --verbose). */
function runCli(runtime, cliArgs, log, verbose) {
  return new Promise((resolve) => {
    const child = spawn(runtime.command, [join(suiteDir(), "dist", "index.js"), ...cliArgs], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let text = "";
    const collect = (stream, target) =>
      stream.on("data", (chunk) => {
        text += chunk;
        if (verbose) target.write(chunk);
      });
    collect(child.stdout, process.stdout);
    collect(child.stderr, process.stderr);
    const timer = setTimeout(() => child.kill("SIGKILL"), SUITE_TIMEOUT_MS);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      writeFileSync(log, text, { flag: "a" });
      resolve({ code, signal, text });
    });
  });
}

/** checks.json of every scenario in `dir`, by scenario name (`server-<name>-<timestamp>/`). */
function readResults(dir) {
  const results = new Map();
  if (!existsSync(dir)) return results;
  // Sorted, so that with a reused --output-dir the newest run of a scenario wins.
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    const match = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry.name);
    const file = join(dir, entry.name, "checks.json");
    if (entry.isDirectory() && match && existsSync(file)) results.set(match[1], JSON.parse(readFileSync(file, "utf8")));
  }
  return results;
}

/**
 * A scenario's verdict as the suite gives it: it fails on a FAILURE check; WARNING, INFO and
 * SKIPPED do not fail it. The one exception: a FAILURE that NEEDS_FIXTURE_TOOL names for this
 * scenario, marked untestable by the suite, whose tool is not in `listed` (the server's tool names;
 * undefined when unknown, and then nothing is allowed). `allow` is false against the fixture.
 */
export function judge(scenario, checks, { allow = false, listed } = {}) {
  const needs = (allow && NEEDS_FIXTURE_TOOL[scenario]) || {};
  const failed = [];
  const allowed = [];
  for (const check of checks) {
    if (check.status !== "FAILURE") continue;
    const tool = needs[check.id];
    const untestable = check.details?.untestable === true;
    if (tool !== undefined && untestable && listed !== undefined && !listed.has(tool)) allowed.push({ check, tool });
    else failed.push(check);
  }
  return {
    ok: failed.length === 0,
    passed: checks.filter((c) => c.status === "SUCCESS").length,
    failed,
    allowed,
    warnings: checks.filter((c) => c.status === "WARNING"),
    skipped: checks.filter((c) => c.status === "SKIPPED").length,
  };
}

/** Every tool name the server lists (2026-07-28 wire, all pages), or undefined when it cannot be read. */
async function listedToolNames(url) {
  const names = new Set();
  let cursor;
  for (let page = 1; page <= 100; page++) {
    const params = {
      _meta: {
        "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
        "io.modelcontextprotocol/clientInfo": { name: "toolshed-conformance-runner", version: "0.0.0" },
        "io.modelcontextprotocol/clientCapabilities": {},
      },
      ...(cursor === undefined ? {} : { cursor }),
    };
    let message;
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
          "MCP-Protocol-Version": MODERN_VERSION,
          "Mcp-Method": "tools/list",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: page, method: "tools/list", params }),
        signal: AbortSignal.timeout(10_000),
      });
      const text = await response.text();
      const bodies = (response.headers.get("content-type") ?? "").includes("text/event-stream")
        ? text.split("\n").flatMap((line) => (line.startsWith("data:") ? [line.slice(5)] : []))
        : [text];
      message = bodies.map((body) => JSON.parse(body)).find((m) => m.id === page);
    } catch {
      return undefined;
    }
    if (!Array.isArray(message?.result?.tools)) return undefined;
    for (const tool of message.result.tools) names.add(tool.name);
    cursor = message.result.nextCursor;
    if (typeof cursor !== "string") return names;
  }
  return undefined;
}

function describeRow(name, verdict, reason) {
  const parts = [`${verdict.passed}/${verdict.passed + verdict.failed.length + verdict.allowed.length} checks`];
  if (verdict.allowed.length > 0) parts.push(`${verdict.allowed.length} not testable without fixture tools (allowed)`);
  if (verdict.warnings.length > 0) parts.push(`${verdict.warnings.length} warning(s)`);
  if (verdict.skipped > 0) parts.push(`${verdict.skipped} skipped`);
  return `${verdict.ok ? "✓" : "✗"} ${name}${reason ? ` (${reason})` : ""}: ${parts.join(", ")}`;
}

/** Runs one plan (a requirement set, or chosen scenarios at one revision) and prints its report. */
async function runPlan(plan, { runtime, url, external, outputDir, verbose }) {
  const started = performance.now();
  const dir = join(outputDir, `${plan.kind}-${plan.set.revision}`);
  mkdirSync(dir, { recursive: true });
  const log = join(dir, "suite.log");
  let exit;
  if (plan.scenarios === undefined) {
    const run = await runCli(
      runtime,
      ["server", "--url", url, "--requirements", plan.set.revision, "-o", dir],
      log,
      verbose,
    );
    exit = run.code;
  } else {
    for (const name of plan.scenarios) {
      // An extension's scenarios have no revision of their own: any --spec-version drops them.
      const pick = plan.kind === "tasks" ? ["--force"] : ["--spec-version", plan.set.revision];
      const cliArgs = ["server", "--url", url, "--scenario", name, ...pick, "-o", dir];
      await runCli(runtime, cliArgs, log, verbose);
    }
  }
  const results = readResults(dir);
  const names = plan.scenarios ?? [...plan.set.scored, ...plan.set.notScored.map((n) => n.name)];
  const allow = external && names.some((name) => NEEDS_FIXTURE_TOOL[name]);
  const listed = allow ? await listedToolNames(url) : undefined;

  const rows = names.map((name) => {
    const checks = results.get(name);
    const notScored = plan.set.notScored.find((n) => n.name === name);
    const scored = plan.set.scored.includes(name);
    if (!checks) {
      const verdict = { ok: false, passed: 0, failed: [], allowed: [], warnings: [], skipped: 0, missing: true };
      return { name, scored, reason: notScored?.reason, verdict };
    }
    return { name, scored, reason: notScored?.reason, verdict: judge(name, checks, { allow, listed }) };
  });
  const scoredRows = rows.filter((r) => r.scored);
  const otherRows = rows.filter((r) => !r.scored);

  out();
  const served =
    plan.kind === "tasks" ? "tasks fixture (stateless)" : `fixture pack (${fixtureModeFor(plan.set.revision)})`;
  out(`${plan.label}: ${external ? "external server" : served}, ${url}`);
  for (const row of scoredRows) {
    out(
      row.verdict.missing
        ? `✗ ${row.name}: no results (the scenario crashed or did not run; see the log)`
        : describeRow(row.name, row.verdict),
    );
    for (const { check, tool } of row.verdict.allowed) {
      out(`    allowed: ${check.id}: not testable, the server does not list ${tool}`);
    }
    for (const check of row.verdict.warnings)
      out(`    warning: ${check.id}: ${check.errorMessage ?? check.description}`);
  }
  if (otherRows.length > 0) {
    out(`not scored for ${plan.set.revision} (run and reported, never counted):`);
    for (const row of otherRows) {
      out(
        row.verdict.missing
          ? `✗ ${row.name} (${row.reason ?? "not listed"}): no results`
          : describeRow(row.name, row.verdict, row.reason ?? "not listed"),
      );
    }
  }
  const failing = scoredRows.filter((r) => !r.verdict.ok);
  for (const row of failing) {
    out();
    out(`✗ ${row.name}`);
    for (const check of row.verdict.failed) out(`    ${check.id}: ${check.errorMessage ?? check.description}`);
  }
  // The suite's own verdict on a requirement set: exit 1 exactly when a scored scenario has a FAILURE.
  let disagreement = false;
  if (plan.scenarios === undefined && (exit === 0) !== (failing.length === 0)) {
    disagreement = true;
    out(
      `✗ the suite exited with ${exit}, which disagrees with ${failing.length} failing scored scenario(s); see ${log}`,
    );
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const others =
    otherRows.length === 0
      ? ""
      : `; not scored: ${otherRows.filter((r) => r.verdict.ok).length} passed, ${otherRows.filter((r) => !r.verdict.ok).length} failed`;
  out(
    `${plan.label}: ${scoredRows.length - failing.length} passed, ${failing.length} failed (scenarios${others}; ${seconds}s)`,
  );
  return { passed: scoredRows.length - failing.length, failed: failing.length + (disagreement ? 1 : 0) };
}

const USAGE =
  "usage: node run.mjs [--url <server url>] [--requirements <revision>]... [--scenario <name>]... [--tasks] [--output-dir <dir>] [--verbose]";

async function main() {
  const { values } = parseArgs({
    options: {
      url: { type: "string" },
      requirements: { type: "string", multiple: true },
      scenario: { type: "string", multiple: true },
      tasks: { type: "boolean", default: false },
      "output-dir": { type: "string" },
      verbose: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    out(USAGE);
    return 0;
  }
  const sets = requirementSets();
  const unknown = (values.requirements ?? []).filter((r) => !sets.has(r));
  if (unknown.length > 0) {
    out(`unknown requirement set ${unknown.join(", ")}; this suite has ${[...sets.keys()].join(", ")}`);
    return 2;
  }
  const revisions = values.requirements ?? [...sets.keys()];
  const external = values.url !== undefined;
  const plans = [];
  if (values.tasks) {
    const set = { revision: MODERN_VERSION, scored: TASKS_SCENARIOS, notScored: [] };
    plans.push({ kind: "tasks", label: "tasks extension", set, scenarios: TASKS_SCENARIOS });
  }
  for (const revision of values.tasks ? [] : revisions) {
    const set = sets.get(revision);
    if (values.scenario) {
      const listed = new Set([...set.scored, ...set.notScored.map((n) => n.name)]);
      const scenarios = values.scenario.filter((name) => listed.has(name));
      if (scenarios.length > 0) plans.push({ kind: "selected", label: `selected ${revision}`, set, scenarios });
    } else if (external) {
      plans.push({ kind: "generic", label: `generic ${revision}`, set, scenarios: GENERIC_SCENARIOS[revision] ?? [] });
    } else {
      plans.push({ kind: "requirements", label: `requirements ${revision}`, set, scenarios: undefined });
    }
  }
  const orphans = (values.scenario ?? []).filter((name) => !plans.some((p) => p.scenarios?.includes(name)));
  if (orphans.length > 0) {
    out(
      `${orphans.join(", ")}: in no requirement set of ${revisions.join(", ")}; see \`conformance list --requirements <revision>\``,
    );
    return 2;
  }
  const runtime = suiteRuntime();
  if (!runtime) {
    out(
      "the conformance suite needs Node 22 or later: run `npx -y pnpm@12.4.2 install` (the `node` package gives one), or run this with Node 22+",
    );
    return 2;
  }

  const started = performance.now();
  const outputDir = values["output-dir"] ?? mkdtempSync(join(tmpdir(), "toolshed-conformance-"));
  mkdirSync(outputDir, { recursive: true });
  out(
    `conformance ${JSON.parse(readFileSync(join(suiteDir(), "package.json"), "utf8")).version}, suite on ${runtime.label}`,
  );
  const totals = { passed: 0, failed: 0 };
  for (const plan of plans) {
    let server;
    let url = values.url;
    if (!external) {
      const { startFixtureServer, startTasksFixtureServer } = await import("./src/serve.mjs");
      server =
        plan.kind === "tasks"
          ? await startTasksFixtureServer()
          : await startFixtureServer({ sessions: fixtureModeFor(plan.set.revision) === "sessions" });
      url = server.url;
    }
    try {
      const result = await runPlan(plan, { runtime, url, external, outputDir, verbose: values.verbose });
      totals.passed += result.passed;
      totals.failed += result.failed;
    } finally {
      await server?.close();
    }
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  out();
  out(`results and logs: ${outputDir}`);
  out(`${totals.passed} passed, ${totals.failed} failed (scenarios, ${seconds}s)`);
  return totals.failed === 0 ? 0 : 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().then(
    (code) => process.exit(code),
    (error) => {
      console.error(error?.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" ? `${error.message}; see --help` : error);
      process.exit(2);
    },
  );
}
