// Runs the official MCP conformance suite (@modelcontextprotocol/conformance) over Streamable HTTP.
//
//   node run.mjs                          fixture pack, sessions mode: the whole active server suite
//   node run.mjs --scenario <name> ...    fixture pack: only these scenarios
//   node run.mjs --url <url>              a running server: the generic scenarios only
//   options: --output-dir <dir> (keep results there), --verbose (stream the suite's own output)
//
// Exits 1 when a scenario fails, 2 on bad usage.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

/** What every MCP server should pass, whatever its tools: run against the real server with --url. */
export const GENERIC_SCENARIOS = [
  "server-initialize",
  "ping",
  "tools-list",
  "logging-set-level",
  "dns-rebinding-protection",
];
const SUITE_TIMEOUT_MS = 10 * 60_000;

const out = (line = "") => process.stdout.write(`${line}\n`);

/** The suite needs Node 22 (fs.globSync): the `node` npm package, this Node, or Node 20 plus a preload. */
function suiteRuntime() {
  try {
    const bin = join(dirname(require.resolve("node/package.json")), "bin", "node");
    const version = spawnSync(bin, ["--version"], { encoding: "utf8" }).stdout?.trim() ?? "";
    if (Number(version.slice(1).split(".")[0]) >= 22) return { command: bin, args: [], label: `node ${version} (npm)` };
  } catch {
    // no `node` package: fall through
  }
  const label = `node v${process.versions.node}`;
  if (Number(process.versions.node.split(".")[0]) >= 22) return { command: process.execPath, args: [], label };
  const preload = pathToFileURL(join(here, "src", "node20", "preload.mjs")).href;
  return { command: process.execPath, args: ["--import", preload], label: `${label} + fs.globSync preload` };
}

function suiteCli() {
  return join(dirname(require.resolve("@modelcontextprotocol/conformance/package.json")), "dist", "index.js");
}

/** Runs the suite's CLI once; its output goes to `log` (and to the terminal with --verbose). */
function runCli(runtime, cliArgs, log, verbose) {
  return new Promise((resolve) => {
    const child = spawn(runtime.command, [...runtime.args, suiteCli(), ...cliArgs], {
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
  // Sorted, so that with a reused --output-dir the newest run of a scenario wins.
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    const match = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry.name);
    const file = join(dir, entry.name, "checks.json");
    if (entry.isDirectory() && match && existsSync(file)) results.set(match[1], JSON.parse(readFileSync(file, "utf8")));
  }
  return results;
}

function summarize(scenarios, results) {
  const rows = [];
  for (const name of scenarios) {
    const checks = results.get(name);
    if (!checks) {
      rows.push({ name, ok: false, detail: "no results: the scenario crashed or did not run (see the log)" });
      continue;
    }
    // As the suite counts: a scenario fails on a FAILURE check; warnings are advice.
    const failed = checks.filter((c) => c.status === "FAILURE");
    const passed = checks.filter((c) => c.status === "SUCCESS").length;
    const warnings = checks.filter((c) => c.status === "WARNING");
    const detail = [
      `${passed}/${passed + failed.length} checks`,
      ...(warnings.length > 0 ? [`${warnings.length} warning(s)`] : []),
    ].join(", ");
    rows.push({ name, ok: failed.length === 0, detail, failed, warnings });
  }
  return rows;
}

async function main() {
  const { values } = parseArgs({
    options: {
      url: { type: "string" },
      scenario: { type: "string", multiple: true },
      "output-dir": { type: "string" },
      verbose: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    out("usage: node run.mjs [--url <server url>] [--scenario <name>]... [--output-dir <dir>] [--verbose]");
    return 0;
  }
  const started = performance.now();
  const outputDir = values["output-dir"] ?? mkdtempSync(join(tmpdir(), "toolshed-conformance-"));
  mkdirSync(outputDir, { recursive: true });
  const log = join(outputDir, "suite.log");
  const runtime = suiteRuntime();

  let server;
  let url = values.url;
  if (url === undefined) {
    const { startFixtureServer } = await import("./src/serve.mjs");
    server = await startFixtureServer();
    url = server.url;
  }
  // Against a given server only the generic scenarios apply; the fixture pack gets the active suite.
  const chosen = values.scenario ?? (values.url === undefined ? undefined : GENERIC_SCENARIOS);
  out(`conformance: ${url} (${server ? "fixture pack, sessions mode" : "external server"}), suite on ${runtime.label}`);

  let scenarios;
  try {
    if (chosen === undefined) {
      const run = await runCli(runtime, ["server", "--url", url, "--output-dir", outputDir], log, values.verbose);
      scenarios = [...run.text.matchAll(/^=== Running scenario: (\S+) ===$/gm)].map((m) => m[1]);
      if (scenarios.length === 0) {
        out(run.text);
        out(`the suite did not run (exit ${run.code ?? run.signal}); log: ${log}`);
        return 1;
      }
    } else {
      scenarios = chosen;
      for (const name of chosen) {
        await runCli(
          runtime,
          ["server", "--url", url, "--scenario", name, "--output-dir", outputDir],
          log,
          values.verbose,
        );
      }
    }
  } finally {
    await server?.close();
  }

  const rows = summarize(scenarios, readResults(outputDir));
  out();
  for (const row of rows) {
    out(`${row.ok ? "✓" : "✗"} ${row.name}: ${row.detail}`);
    for (const check of row.warnings ?? [])
      out(`    warning: ${check.name}: ${check.errorMessage ?? check.description}`);
  }
  const failing = rows.filter((r) => !r.ok);
  for (const row of failing) {
    out();
    out(`✗ ${row.name}`);
    for (const check of row.failed ?? []) out(`    ${check.name}: ${check.errorMessage ?? check.description}`);
    if (!row.failed) out(`    ${row.detail}`);
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  out();
  out(`results and log: ${outputDir}`);
  out(`${rows.length - failing.length} passed, ${failing.length} failed (scenarios, ${seconds}s)`);
  return failing.length === 0 ? 0 : 1;
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
