import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CI, LINES, type Line, type McpClient, nodeLine, ROOT, sdk } from "./lines.js";

// Issue 17: the storage contract suites, the packs' tests and both servers on every maintained Node
// line, SQLite through the default driver (node:sqlite), with binaries from the npm node package.

/** The vitest projects run on each line, with the fewest tests each must pass (a run that collects nothing fails). */
const SUITES = { storage: 55, notes: 150, tickets: 175, crm: 150 } as const;
type Project = keyof typeof SUITES;
const SUITES_TIMEOUT_MS = 14 * 60_000;

const STDIO_CLI = join(ROOT, "apps", "stdio-server", "dist", "cli.js");
const HTTP_CLI = join(ROOT, "apps", "http-server", "dist", "cli.js");

const temps: string[] = [];
const children = new Set<ChildProcess>();
afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});
function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

interface Assertion {
  status: "passed" | "failed" | "pending" | "todo" | "skipped";
  ancestorTitles: string[];
  title: string;
  fullName: string;
  failureMessages?: string[];
}
interface JsonReport {
  success: boolean;
  numTotalTests: number;
  numFailedTests: number;
  numFailedTestSuites: number;
  testResults: Array<{ name: string; status: string; message?: string; assertionResults: Assertion[] }>;
}

/** The environment for a child vitest: this run's own vitest variables and lane (vitest.config.ts) left out. */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^VITEST/.test(key) && key !== "TOOLSHED_TEST_LANE") env[key] = value;
  }
  return env;
}

/** Runs the SUITES projects under `bin` with the JSON reporter; resolves with the report and the run's output. */
function runSuites(bin: string, major: Line): Promise<{ code: number | null; report?: JsonReport; output: string }> {
  const report = join(temp(`toolshed-node${major}-`), "report.json");
  const projects = Object.keys(SUITES).flatMap((name) => ["--project", name]);
  const child = spawn(
    bin,
    [
      join(ROOT, "node_modules", "vitest", "vitest.mjs"),
      "run",
      ...projects,
      "--reporter=json",
      `--outputFile=${report}`,
    ],
    { cwd: ROOT, env: childEnv(), stdio: ["ignore", "pipe", "pipe"] },
  );
  children.add(child);
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-20_000);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const timer = setTimeout(() => child.kill("SIGKILL"), SUITES_TIMEOUT_MS);
  return new Promise((resolve) => {
    child.on("close", (code) => {
      clearTimeout(timer);
      children.delete(child);
      resolve({
        code,
        output,
        report: existsSync(report) ? (JSON.parse(readFileSync(report, "utf8")) as JsonReport) : undefined,
      });
    });
  });
}

/**
 * Passed, failed and skipped tests per project (the package folder a test file sits in); skipped
 * tests grouped by file and outermost describe, whose titles say why they skip.
 */
function countByProject(report: JsonReport) {
  const counts = Object.fromEntries(
    Object.keys(SUITES).map((name) => [name, { passed: 0, failed: 0, skipped: 0 }]),
  ) as Record<Project, { passed: number; failed: number; skipped: number }>;
  const skipped = new Map<string, number>();
  const failed: string[] = [];
  for (const file of report.testResults) {
    const where = relative(ROOT, file.name);
    const project = where.split("/")[1] as Project;
    const count = counts[project];
    if (file.status === "failed" && file.assertionResults.length === 0) {
      failed.push(`${where}: ${file.message?.split("\n")[0] ?? "failed to load"}`);
    }
    for (const test of file.assertionResults) {
      if (test.status === "passed") count.passed++;
      else if (test.status === "failed") {
        count.failed++;
        failed.push(`${where} > ${test.fullName}: ${test.failureMessages?.[0]?.split("\n")[0] ?? ""}`);
      } else {
        count.skipped++;
        const group = `${where} > ${test.ancestorTitles[0] ?? test.title}`;
        skipped.set(group, (skipped.get(group) ?? 0) + 1);
      }
    }
  }
  return { counts, skipped, failed };
}

/** JSON log lines of a server's stderr. */
function logLines(stderr: string): Array<Record<string, unknown>> {
  return stderr
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        return { notJson: line };
      }
    });
}

async function waitFor(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** What a client sees from one server: its tools, then a call of each pack. */
async function exercise(client: McpClient) {
  const tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    expect(result.isError ?? false, `${name}: ${JSON.stringify(result.content)}`).toBe(false);
    return result.structuredContent as Record<string, unknown>;
  };
  const note = await call("create_note", {
    title: "Pancakes",
    body: "Flour, milk and eggs whisked into a batter",
    tags: ["Kitchen"],
  });
  const notes = (await call("search_notes", { query: "batter" })).result as Array<{ title: string }>;
  const ticket = await call("create_ticket", { title: "Export fails", body: "The CSV export stops at 1000 rows" });
  const tickets = (await call("search_tickets", { query: "export rows" })).result as Array<{ id: string }>;
  const account = await call("crm_create_account", { name: "Acme Logistics", tier: "growth", arr: 120000 });
  const accounts = (await call("crm_search_accounts", { query: "acme" })).accounts as Array<{ id: string }>;
  return {
    tools,
    note: { title: note.title, tags: note.tags, words: note.words },
    found: notes.map((n) => n.title),
    ticketFound: tickets.map((t) => t.id).includes(String(ticket.id)),
    accountFound: accounts.map((a) => a.id).includes(String(account.id)),
  };
}

const EXPECTED = {
  tools: [
    "add_ticket_comment",
    "bulk_update_ticket_status",
    "create_note",
    "create_ticket",
    "crm_bulk_update_tier",
    "crm_create_account",
    "crm_get_account",
    "crm_search_accounts",
    "delete_note",
    "get_note",
    "get_ticket",
    "list_notes",
    "search_notes",
    "search_tickets",
    "update_note",
    "update_ticket_status",
  ],
  note: { title: "Pancakes", tags: ["kitchen"], words: 8 },
  found: ["Pancakes"],
  ticketFound: true,
  accountFound: true,
};

/** The start-up log line names the SQLite driver (when the server logs one): node:sqlite on these lines. */
function expectNodeDriver(line: Record<string, unknown> | undefined) {
  expect(line).toBeDefined();
  if (line && "sqliteDriver" in line) expect(line.sqliteDriver).toBe("node");
}

for (const major of LINES) {
  const line = nodeLine(major);
  describe(`Node ${major}`, () => {
    if ("problem" in line) {
      // CI must test every line; a developer without the binary is told why nothing ran.
      if (CI) {
        it(`has a Node ${major} binary`, () => {
          throw new Error(line.problem);
        });
      } else {
        it.skip(`skipped: no Node ${major} binary: ${line.problem}`, () => {});
      }
      return;
    }
    const { bin, version } = line;

    it(`toolshed-stdio on ${version}: SQLite by node:sqlite, a call of each pack, only JSON-RPC on stdout, a clean stop`, async () => {
      const dir = temp(`toolshed-node${major}-stdio-`);
      const transport = new sdk.StdioClientTransport({
        command: bin,
        args: [STDIO_CLI, "--db", join(dir, "toolshed.db")],
        env: { PATH: process.env.PATH ?? "", HOME: dir },
        stderr: "pipe",
      });
      let stderr = "";
      transport.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8");
      });
      const client = new sdk.Client({ name: `node${major}-smoke`, version: "1.0.0" });
      // Any stdout line that is not a JSON-RPC message reaches the client as a transport error.
      const transportErrors: string[] = [];
      client.onerror = (error) => transportErrors.push(error.message);
      await client.connect(transport);
      expect(await exercise(client)).toEqual(EXPECTED);
      await client.close();
      await waitFor(() => logLines(stderr).some((l) => l.msg === "stopped"), "the stdio server's 'stopped' log line");

      expect(transportErrors).toEqual([]);
      const logs = logLines(stderr);
      // stderr holds the server's JSON logs only: no node:sqlite ExperimentalWarning, no stack.
      expect(logs.filter((l) => "notJson" in l)).toEqual([]);
      expectNodeDriver(logs.find((l) => l.msg === "ready on stdio"));
      expect(logs.find((l) => l.msg === "stopped")).toMatchObject({ reason: "stdin closed" });
    });

    it(`toolshed-http on ${version}: SQLite by node:sqlite, a call of each pack over Streamable HTTP, a clean stop`, async () => {
      const dir = temp(`toolshed-node${major}-http-`);
      const server = spawn(bin, [HTTP_CLI, "--db", join(dir, "toolshed.db"), "--port", "0"], {
        env: { PATH: process.env.PATH ?? "", HOME: dir },
        stdio: ["ignore", "pipe", "pipe"],
      });
      children.add(server);
      let stderr = "";
      let stdout = "";
      server.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8");
      });
      server.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString("utf8");
      });
      const exited = new Promise<number | null>((resolve) => server.on("exit", (code) => resolve(code)));
      await waitFor(
        () => logLines(stderr).some((l) => typeof l.url === "string") || server.exitCode !== null,
        "the HTTP server's 'listening' log line",
      );
      const listening = logLines(stderr).find((l) => typeof l.url === "string");
      expect(listening, stderr).toBeDefined();
      expectNodeDriver(listening);

      const client = new sdk.Client({ name: `node${major}-smoke`, version: "1.0.0" });
      await client.connect(new sdk.StreamableHTTPClientTransport(new URL(String(listening?.url))));
      expect(await exercise(client)).toEqual(EXPECTED);
      await client.close();

      server.kill("SIGTERM");
      expect(await exited).toBe(0);
      children.delete(server);
      const logs = logLines(stderr);
      expect(logs.filter((l) => "notJson" in l)).toEqual([]);
      expect(logs.at(-1)).toMatchObject({ msg: "stopped" });
      expect(stdout).toBe("");
    });

    it(`the storage contract suites and the packs' tests pass on ${version} (PostgreSQL suites included)`, async ({
      annotate,
    }) => {
      const started = Date.now();
      const run = await runSuites(bin, major);
      const seconds = Math.round((Date.now() - started) / 1000);
      expect(run.report, `no JSON report (exit ${run.code}):\n${run.output}`).toBeDefined();
      const report = run.report as JsonReport;
      const { counts, skipped, failed } = countByProject(report);
      const summary = `Node ${version}, ${seconds} s: ${Object.entries(counts)
        .map(([name, c]) => `${name} ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped`)
        .join("; ")}`;
      await annotate(summary);
      if (skipped.size > 0) {
        const groups = [...skipped].map(([group, n]) => `${group}: ${n} skipped`);
        await annotate(`skipped on Node ${version} (the titles say why):\n${groups.join("\n")}`);
      }
      process.stdout.write(`${summary}\n`);

      expect(failed, summary).toEqual([]);
      expect([report.numFailedTests, report.numFailedTestSuites, run.code]).toEqual([0, 0, 0]);
      for (const [name, least] of Object.entries(SUITES)) {
        expect(counts[name as Project].passed, `${name} on Node ${version}`).toBeGreaterThanOrEqual(least);
      }
    });
  });
}
