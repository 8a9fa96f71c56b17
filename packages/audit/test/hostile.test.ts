// The audit against a hostile server (fixtures/hostile-server.mjs): escapes in every text, schemas
// built to overflow, answers too large or endless, silence. Real processes over stdio and HTTP.
import { existsSync, readFileSync } from "node:fs";
import { startHttpProcess, tempDir } from "@toolshed/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { cleanUp, fixture, runCli } from "./helpers.js";

afterAll(cleanUp);

const HOSTILE = fixture("hostile-server.mjs");
const stdio = (mode: string) => ["--", process.execPath, HOSTILE, mode];
async function http(mode: string): Promise<string[]> {
  const server = await startHttpProcess(HOSTILE, [mode, "--http"]);
  return ["--url", server.url];
}

/** Runs the CLI, measuring its time, its own peak memory, and which server processes outlive it. */
async function audit(args: string[]) {
  const dir = tempDir("hostile");
  const rssFile = dir.file("max-rss");
  const pidFile = dir.file("pids");
  const started = Date.now();
  const result = await runCli(args, {
    env: { AUDIT_MAX_RSS_FILE: rssFile, HOSTILE_PIDS: pidFile },
    nodeArgs: ["--import", fixture("max-rss.mjs")],
  });
  const pids = existsSync(pidFile) ? readFileSync(pidFile, "utf8").trim().split("\n").map(Number) : [];
  const alive = pids.filter((pid) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  });
  return {
    ...result,
    seconds: (Date.now() - started) / 1000,
    maxRssMiB: Number(readFileSync(rssFile, "utf8")) / 1024,
    alive,
  };
}

// C0 controls but newline, DEL, C1 controls, and the bidi and invisible characters.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;

describe("escape sequences from the server", () => {
  it("are shown escaped in the text report, never sent to the terminal", async () => {
    const { code, stdout } = await audit(["--runs", "2", ...stdio("escapes")]);
    expect(code).toBe(0);
    expect(stdout).not.toMatch(RAW);
    expect(stdout).toContain(
      "server    evil\\x1b[2J\\x1b]8;;https://evil.example/\\x07click\\x1b]8;;\\x07 1.0\\x0d\\x9b31m\\u202eevil\\x85\n",
    );
    expect(stdout).toContain("fail look\\x1b[31mup\\u202egnp.exe: no description on q\\x1b]0;pwned\\x07\n");
    expect(stdout).toContain('isError result "bad \\x1b[2J\\x1b[H\\x9b31m\\u202eargument\\x07"');
    expect(stdout).toContain('JSON-RPC -32602 "Unknown tool \\x1b]0;pwned\\x07"');
  });

  it("stay valid JSON with --json, escaped as \\u sequences that parse back to the server's text", async () => {
    const { code, stdout } = await audit(["--json", "--runs", "2", ...stdio("escapes")]);
    expect(code).toBe(0);
    expect(stdout).not.toMatch(RAW);
    const report = JSON.parse(stdout) as { server: { name: string; version: string } };
    expect(report.server).toEqual({
      name: "evil\u001b[2J\u001b]8;;https://evil.example/\u0007click\u001b]8;;\u0007",
      version: "1.0\r\u009b31m\u202eevil\u0085",
    });
  });

  it("in a failed start's stderr line are escaped too", async () => {
    const { code, stderr } = await audit([
      "--timeout",
      "5000",
      "--",
      process.execPath,
      "-e",
      "console.error('\\u001b[2J\\u001b]0;pwned\\u0007boot failed\\u202e'); process.exit(3)",
    ]);
    expect(code).toBe(2);
    expect(stderr.slice(0, -1)).not.toMatch(RAW);
    expect(stderr).toContain("its last stderr line: \\x1b[2J\\x1b]0;pwned\\x07boot failed\\u202e;");
  });
});

describe("schemas built to overflow", () => {
  it("a $ref cycle, 10,000 levels and 100,000 properties give findings in bounded time", async () => {
    const { code, stdout, stderr, seconds } = await audit(["--json", "--runs", "2", ...stdio("schemas")]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(seconds).toBeLessThan(60);
    const report = JSON.parse(stdout) as {
      rules: Array<{
        id: string;
        status: string;
        summary: string;
        findings: Array<{ subject: string; message: string }>;
      }>;
    };
    const rule = (id: string) => report.rules.find((r) => r.id === id);
    expect(rule("D4")?.findings).toEqual([
      {
        status: "fail",
        subject: "cyclic",
        message: "$ref cycle #/$defs/a → #/$defs/a: it never reaches a schema, so no validator can resolve it",
      },
      {
        status: "fail",
        subject: "deep",
        message: expect.stringMatching(
          /^inputSchema nests deeper than 64 levels \(at a\.a\.a[a.]*…\); the audit checked 64 levels, and clients may refuse it$/,
        ),
      },
      {
        status: "fail",
        subject: "wide",
        message:
          "inputSchema has more than 10000 subschemas; the audit checked the first 10000, and each one costs a model tokens",
      },
    ]);
    expect(rule("D6")).toMatchObject({ status: "fail", summary: "9999 fail (the first 1000 listed)" });
    expect(rule("D6")?.findings).toHaveLength(1000);
    expect(rule("B6")?.status).toBe("pass");
  });
});

describe("answers too large to read", () => {
  const TOO_LARGE =
    "answered tools/list with more than 4194304 bytes, so the audit read no more and stopped; a list this large costs every conversation its size in tokens (--max-answer raises the limit)\n";

  it.each([
    ["100,000 tools", "many-tools", "stdio"],
    ["a 50 MB description", "huge-description", "stdio"],
    ["an endless answer", "endless", "stdio"],
    ["100,000 tools", "many-tools", "http"],
    ["a 50 MB description", "huge-description", "http"],
    ["an endless answer", "endless", "http"],
  ])("%s (%s, over %s) stop the audit at --max-answer, with bounded memory", async (_what, mode, over) => {
    const target = over === "http" ? await http(mode) : stdio(mode);
    // The wait for the first bytes only: a loaded machine can take seconds to build 50 MB.
    const { code, stdout, stderr, seconds, maxRssMiB, alive } = await audit(["--timeout", "15000", ...target]);
    expect({ code, stdout }).toEqual({ code: 2, stdout: "" });
    expect(stderr).toMatch(/^toolshed-audit: \S+.* answered tools\/list/);
    expect(stderr.endsWith(TOO_LARGE)).toBe(true);
    expect(seconds).toBeLessThan(30);
    expect(maxRssMiB).toBeLessThan(200);
    expect(alive).toEqual([]);
  });

  it("100,000 tools in pages: the first 1,000 are checked, and the report says so", async () => {
    const { code, stdout, seconds } = await audit(["--json", "--runs", "0", ...stdio("paged-tools")]);
    expect(code).toBe(0);
    expect(seconds).toBeLessThan(60);
    const report = JSON.parse(stdout) as {
      counts: { tools: number };
      rules: Array<{ id: string; findings: Array<{ subject: string; message: string }> }>;
    };
    expect(report.counts.tools).toBe(1000);
    expect(report.rules.find((r) => r.id === "D1")?.findings[0]).toEqual({
      status: "warn",
      subject: "server",
      message: "tools/list lists more than 1000 tools; the audit checked the first 1000 tools",
    });
  });
});

describe("a server that does not answer", () => {
  it("over stdio, not even initialize (and ignoring SIGTERM): exit 2, its processes killed", async () => {
    const { code, stderr, seconds, alive } = await audit(["--timeout", "1000", ...stdio("silent")]);
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /silent did not answer initialize in 1000 ms \(--timeout\); check that the command after -- starts an MCP server on stdio\n$/,
    );
    expect(seconds).toBeLessThan(30);
    expect(alive).toEqual([]);
  });

  it("over stdio, after initialize: exit 2, its process killed", async () => {
    // 3 s: the child, started on a loaded machine, must answer initialize within it (1 s was missed under CI load).
    const { code, stdout, stderr, seconds, alive } = await audit(["--timeout", "3000", ...stdio("silent-after-init")]);
    expect({ code, stdout }).toEqual({ code: 2, stdout: "" });
    expect(stderr).toMatch(
      /silent-after-init did not answer tools\/list in 3000 ms; the audit stopped \(a slow server needs a larger --timeout\)\n$/,
    );
    expect(seconds).toBeLessThan(30);
    expect(alive).toEqual([]);
  });

  it("over HTTP, not at all: exit 2", async () => {
    const target = await http("silent");
    const { code, stderr, seconds } = await audit(["--timeout", "1000", ...target]);
    expect(code).toBe(2);
    expect(stderr).toBe(
      `toolshed-audit: cannot reach ${target[1]}: no answer in 1000 ms; start the server, or pass the URL of its Streamable HTTP endpoint (for example --url http://127.0.0.1:3000/mcp)\n`,
    );
    expect(seconds).toBeLessThan(30);
  });

  it("over HTTP, after initialize: exit 2", async () => {
    const target = await http("silent-after-init");
    const { code, stderr, seconds } = await audit(["--timeout", "1000", ...target]);
    expect(code).toBe(2);
    expect(stderr).toBe(
      `toolshed-audit: ${target[1]} stopped answering during the handshake: no HTTP answer in 1000 ms (--timeout)\n`,
    );
    expect(seconds).toBeLessThan(30);
  });

  it("to tool calls only: two silences in a row end the probes, and B6 says why", async () => {
    // 3 s: the handshake must be answered within it, even by a child started on a loaded machine.
    const { code, stdout, seconds, alive } = await audit(["--json", "--timeout", "3000", ...stdio("silent-on-call")]);
    expect(code).toBe(0);
    expect(seconds).toBeLessThan(30);
    expect(alive).toEqual([]);
    const report = JSON.parse(stdout) as { rules: Array<{ id: string; status: string; findings: unknown[] }> };
    expect(report.rules.find((r) => r.id === "B6")).toMatchObject({
      status: "fail",
      findings: [
        {
          subject: "server",
          message:
            "during the probes: the server stopped answering (2 requests in a row got no answer in 3000 ms, --timeout); the audit closed the connection",
        },
      ],
    });
  });
});
