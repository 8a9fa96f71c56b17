import { afterAll, describe, expect, it } from "vitest";
import { cleanUp, closedPortUrl, example, fixture, runCli } from "./helpers.js";

afterAll(cleanUp);

const SDK_EXAMPLE = ["--", process.execPath, example("sdk-server.mjs")];

describe("toolshed-audit", () => {
  it("--json prints one JSON report with every rule and the score", async () => {
    const { code, stdout, stderr } = await runCli(["--json", "--runs", "5", ...SDK_EXAMPLE]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    const report = JSON.parse(stdout) as {
      score: number;
      minScore: number;
      rules: Array<{ id: string; status: string }>;
      options: unknown;
    };
    expect(report.rules.map((r) => r.id)).toEqual([
      "D1",
      "D2",
      "D3",
      "D4",
      "D5",
      "D6",
      "D7",
      "D8",
      "D9",
      "D10",
      "B1",
      "B2",
      "B3",
      "B4",
      "B5",
      "B6",
    ]);
    expect(report.options).toEqual({ seed: 42, runs: 5, allowWrites: false });
    expect(report.minScore).toBe(0);
    expect(report.score).toBeGreaterThan(0);
    expect(report.score).toBeLessThan(100);
  });

  it("exits 1 below --min-score and says so on stderr, 0 at or above it", async () => {
    const below = await runCli(["--min-score", "100", "--runs", "2", ...SDK_EXAMPLE]);
    const score = Number(/score (\d+)\/100/.exec(below.stdout)?.[1]);
    expect(below.code).toBe(1);
    expect(below.stderr).toBe(`toolshed-audit: score ${score} is below --min-score 100\n`);
    const at = await runCli(["--min-score", String(score), "--runs", "2", ...SDK_EXAMPLE]);
    expect(at.code).toBe(0);
  });

  it("exits 2 on an unknown flag, naming the flags it knows", async () => {
    const { code, stdout, stderr } = await runCli(["--sede", "1", ...SDK_EXAMPLE]);
    expect({ code, stdout }).toEqual({ code: 2, stdout: "" });
    expect(stderr).toBe(
      "toolshed-audit: Unknown option '--sede'; flags: --url, --header, --json, --min-score, --seed, --runs, --allow-writes, --timeout, --max-answer, --help, --version; the server's command goes after -- (--help shows usage)\n",
    );
  });

  it.each([
    [["--min-score", "101", ...SDK_EXAMPLE], '--min-score must be a whole number from 0 to 100, got "101"'],
    [["--runs", "many", ...SDK_EXAMPLE], '--runs must be a whole number from 0 to 1000, got "many"'],
    [["--max-answer", "4MB", ...SDK_EXAMPLE], '--max-answer must be a whole number from 1024 to 1073741824, got "4MB"'],
    [
      ["--url", "http://127.0.0.1:3000/mcp", "--header", "no colon"],
      '--header must look like "Name: value", got "no colon"',
    ],
    [["--url", "http://127.0.0.1:3000/mcp", ...SDK_EXAMPLE], "pass either --url or a command after --, not both"],
    [[], "nothing to audit: pass --url <url>, or the server's command after --, e.g. toolshed-audit -- node server.js"],
  ])("exits 2 on bad usage: %j", async (args, message) => {
    const { code, stdout, stderr } = await runCli(args);
    expect({ code, stdout, stderr }).toEqual({
      code: 2,
      stdout: "",
      stderr: `toolshed-audit: ${message} (--help shows usage)\n`,
    });
  });

  it("exits 2 with one clear line when nothing answers at the URL", async () => {
    const url = await closedPortUrl();
    const { code, stdout, stderr } = await runCli(["--url", url]);
    expect({ code, stdout, stderr }).toEqual({
      code: 2,
      stdout: "",
      stderr: `toolshed-audit: cannot reach ${url}: connection refused (ECONNREFUSED); start the server, or pass the URL of its Streamable HTTP endpoint (for example --url http://127.0.0.1:3000/mcp)\n`,
    });
  });

  it("exits 2 with one clear line when the command does not exist or is not an MCP server", async () => {
    const missing = await runCli(["--", "toolshed-audit-no-such-command"]);
    expect({ code: missing.code, stderr: missing.stderr }).toEqual({
      code: 2,
      stderr:
        'toolshed-audit: cannot start "toolshed-audit-no-such-command": no such command; pass the server\'s command after --, for example -- node dist/server.js\n',
    });
    const exits = await runCli([
      "--timeout",
      "5000",
      "--",
      process.execPath,
      "-e",
      "console.error('boot failed: no config'); process.exit(3)",
    ]);
    expect(exits.code).toBe(2);
    expect(exits.stderr).toMatch(
      /closed before answering initialize; its last stderr line: boot failed: no config; check that the command after -- starts an MCP server on stdio\n$/,
    );
    expect(exits.stderr).not.toMatch(/\n\s+at /);
  });

  it("says what a server that refuses both server/discover and initialize answered", async () => {
    // One line: the command is part of the message.
    const refuseAll =
      'require("node:readline").createInterface({ input: process.stdin }).on("line", (l) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: JSON.parse(l).id, error: { code: -32601, message: "nope" } }) + "\\n"))';
    const { code, stderr } = await runCli(["--timeout", "3000", "--", process.execPath, "-e", refuseAll]);
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /refused initialize \(JSON-RPC -32601: nope\) and answered no server\/discover that lists 2026-07-28; check that the command after -- starts an MCP server on stdio\n$/,
    );
  });

  it("audits a server that speaks only 2026-07-28, and says so", async () => {
    const { code, stdout } = await runCli(["--timeout", "3000", "--", process.execPath, fixture("modern-only.mjs")]);
    expect(code).toBe(0);
    expect(stdout).toContain(
      "\nprotocol  audited in 2026-07-28, the newest revision server/discover offered (2026-07-28)\n",
    );
    expect(stdout).toMatch(/\nscore 100\/100\n$/);
  });

  it("--help prints usage and exits 0", async () => {
    const { code, stdout } = await runCli(["--help"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^toolshed-audit \d+\.\d+\.\d+: audit an MCP server against the Toolshed tool contract\n/);
    expect(stdout).toContain(
      "Exit codes: 0 score at or above --min-score, 1 below it, 2 usage error or no connection.",
    );
  });
});
