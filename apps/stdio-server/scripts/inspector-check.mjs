#!/usr/bin/env node
// Drives the built toolshed-stdio with the MCP Inspector CLI (a client we did not write):
// tools/list with its schema portability lint (--strict), a successful call and a tool error.
// Needs the npm registry the first time (npx fetches the inspector); exits 1 on any failure.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

// stdout lines (the repo's lint allows console only in the root scripts/ folder).
const say = (text) => process.stdout.write(`${text}\n`);
const INSPECTOR = "@modelcontextprotocol/inspector@2.12.0";
const app = fileURLToPath(new URL("..", import.meta.url));
const cli = join(app, "dist", "cli.js");
const EXPECTED_TOOLS = [
  "get_note",
  "search_notes",
  "list_notes",
  "create_note",
  "update_note",
  "delete_note",
  "search_tickets",
  "get_ticket",
  "create_ticket",
  "update_ticket_status",
  "bulk_update_ticket_status",
  "add_ticket_comment",
  "crm_search_accounts",
  "crm_get_account",
  "crm_create_account",
  "crm_bulk_update_tier",
];

if (!existsSync(cli)) {
  say("dist/cli.js is missing; building it with tsup");
  const built = spawnSync("npx", ["--no-install", "tsup"], { cwd: app, stdio: "inherit" });
  if (built.status !== 0) process.exit(1);
}

const tmp = mkdtempSync(join(tmpdir(), "toolshed-inspector-"));
const db = join(tmp, "toolshed.db");
// Keep the inspector's own files out of the home folder.
const env = {
  ...process.env,
  MCP_CATALOG_PATH: join(tmp, "catalog.json"),
  MCP_CLIENT_CONFIG_PATH: join(tmp, "client.json"),
  npm_config_update_notifier: "false",
};
let failures = 0;

function inspect(args) {
  const command = ["-y", INSPECTOR, "--cli", process.execPath, cli, "--db", db, "--demo", "--format", "json", ...args];
  const started = Date.now();
  const run = spawnSync("npx", command, { cwd: app, env, encoding: "utf8", timeout: 300_000 });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  let output;
  try {
    output = JSON.parse(run.stdout);
  } catch {
    output = undefined;
  }
  return { status: run.status, output, stdout: run.stdout, stderr: run.stderr, seconds, shown: args.join(" ") };
}

function check(run, what, ok) {
  if (ok) {
    say(`ok   ${what} (${run.seconds}s)`);
    return;
  }
  failures++;
  say(`FAIL ${what}\n  npx ${INSPECTOR} --cli node dist/cli.js --db ${db} --demo --format json ${run.shown}`);
  say(`  exit ${run.status}\n  stdout: ${run.stdout.slice(0, 2000)}\n  stderr: ${run.stderr.slice(-2000)}`);
}

const list = inspect(["--method", "tools/list", "--strict"]);
const names = list.output?.result?.tools?.map((t) => t.name) ?? [];
check(
  list,
  `tools/list --strict exits 0 and lists the ${EXPECTED_TOOLS.length} tools of notes, tickets and crm`,
  list.status === 0 && JSON.stringify(names) === JSON.stringify(EXPECTED_TOOLS),
);
check(
  list,
  "tools/list --strict reports no schema portability finding (no error, no warning)",
  list.status === 0 && list.output !== undefined && list.output.schemaFindings === undefined,
);

const call = inspect(["--method", "tools/call", "--tool-name", "get_note", "--tool-arg", "title=groceries"]);
const result = call.output?.result;
check(
  call,
  'tools/call get_note title=groceries returns {title: "groceries", body: "milk, eggs", words: 2}',
  call.status === 0 &&
    JSON.stringify(result?.structuredContent) ===
      JSON.stringify({ title: "groceries", body: "milk, eggs", words: 2 }) &&
    result?.content?.[0]?.text.includes("milk, eggs"),
);

const missing = inspect(["--method", "tools/call", "--tool-name", "get_note", "--tool-arg", "title=nope"]);
const error = missing.output?.result;
check(
  missing,
  "tools/call get_note title=nope is a tool error (inspector exit 5) with the not_found hint",
  missing.status === 5 &&
    error?.isError === true &&
    error?.content?.[0]?.text.startsWith("Error executing tool get_note: No note 'nope'") &&
    error?._meta?.["toolshed.dev/error"]?.code === "not_found",
);

rmSync(tmp, { recursive: true, force: true });
say(failures === 0 ? "inspector check passed" : `inspector check failed: ${failures} check(s)`);
process.exit(failures === 0 ? 0 : 1);
