// The official MCP conformance suite, run the way CI runs it: each requirement set against the
// fixture pack served the way its wire needs, and the generic scenarios of both revisions against
// the real server with its three packs.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { GENERIC_SCENARIOS, NEEDS_FIXTURE_TOOL, TASKS_SCENARIOS } from "../run.mjs";
import { startPacksServer } from "../src/serve.mjs";

const runner = fileURLToPath(new URL("../run.mjs", import.meta.url));

function runSuite(args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [runner, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    child.on("close", (code) => resolve({ code, output }));
  });
}

/** The scored totals run.mjs prints for one requirement set or generic run, such as "requirements 2026-07-28". */
function totals(output, label) {
  const match = output.match(new RegExp(`^${label}: (\\d+) passed, (\\d+) failed \\(scenarios`, "m"));
  return match ? { passed: Number(match[1]), failed: Number(match[2]) } : undefined;
}

const allowedChecks = (output) => [...output.matchAll(/^ {4}allowed: (\S+):/gm)].map((m) => m[1]).sort();

let server;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("official conformance suite (@modelcontextprotocol/conformance 0.2.0-alpha.12)", () => {
  it("every scored 2026-07-28 scenario passes against the fixture pack served stateless", async () => {
    const { code, output } = await runSuite(["--requirements", "2026-07-28"]);
    expect(output).toContain("requirements 2026-07-28: fixture pack (stateless)");
    expect(totals(output, "requirements 2026-07-28")).toEqual({ passed: 37, failed: 0 });
    // SHOULDs are warnings, which do not fail a scenario (sep-2164's -32602 and data.uri among them).
    expect(output).not.toMatch(/^ {4}warning:/m);
    // Not scored, but passing: the SEP-2243 standard header checks, and a tool whose input is a
    // JSON Schema 2020-12 document published as written ($schema, $defs, $anchor, if/then/else).
    expect(output).toMatch(/^✓ http-header-validation \(pending\)/m);
    expect(output).toMatch(/^✓ json-schema-2020-12 \(pending\): 8\/8 checks$/m);
    // And Mcp-Param-* headers of an x-mcp-header parameter: Base64, literal values, missing headers.
    expect(output).toMatch(/^✓ http-custom-header-server-validation \(pending\): 10\/10 checks$/m);
    expect(allowedChecks(output)).toEqual([]);
    expect(code).toBe(0);
  });

  it("every scored 2025-11-25 scenario passes against the fixture pack in sessions mode", async () => {
    const { code, output } = await runSuite(["--requirements", "2025-11-25"]);
    expect(output).toContain("requirements 2025-11-25: fixture pack (sessions)");
    expect(totals(output, "requirements 2025-11-25")).toEqual({ passed: 30, failed: 0 });
    expect(output).not.toMatch(/^ {4}warning:/m);
    expect(output).toMatch(/^✓ server-session-lifecycle \(added-after-release\)/m);
    expect(output).toMatch(/^✓ json-schema-2020-12 \(pending\): 8\/8 checks$/m);
    expect(code).toBe(0);
  });

  it("every scenario of the tasks extension passes against the tasks fixture (run with --force)", async () => {
    const { code, output } = await runSuite(["--tasks"]);
    expect(output).toContain("tasks extension: tasks fixture (stateless)");
    expect(totals(output, "tasks extension")).toEqual({ passed: 10, failed: 0 });
    for (const name of TASKS_SCENARIOS) expect(output).toMatch(new RegExp(`^✓ ${name}: \\d+/\\d+ checks`, "m"));
    // This suite has no check in status-notifications yet: its one check is skipped, not passed.
    expect(output).toMatch(/^✓ tasks-status-notifications: 0\/0 checks, 1 skipped$/m);
    expect(output).toMatch(/^✓ tasks-mrtr-composition: 2\/2 checks$/m);
    expect(code).toBe(0);
  });

  it("the generic scenarios of both revisions pass against the three packs (stateless)", async () => {
    server = await startPacksServer();
    const { code, output } = await runSuite(["--url", server.url]);
    expect(totals(output, "generic 2026-07-28")).toEqual({ passed: GENERIC_SCENARIOS["2026-07-28"].length, failed: 0 });
    expect(totals(output, "generic 2025-11-25")).toEqual({ passed: GENERIC_SCENARIOS["2025-11-25"].length, failed: 0 });
    // The packs have no diagnostic tools: exactly server-stateless's fixture-tool checks are not testable.
    expect(allowedChecks(output)).toEqual(Object.keys(NEEDS_FIXTURE_TOOL["server-stateless"]).sort());
    expect(code).toBe(0);
  });

  it("the generic scenarios of both revisions pass against the three packs (sessions)", async () => {
    server = await startPacksServer({ sessions: true });
    const { code, output } = await runSuite(["--url", server.url]);
    // 2026-07-28 requests never use a session, even on a server started with sessions.
    expect(totals(output, "generic 2026-07-28")).toEqual({ passed: GENERIC_SCENARIOS["2026-07-28"].length, failed: 0 });
    expect(totals(output, "generic 2025-11-25")).toEqual({ passed: GENERIC_SCENARIOS["2025-11-25"].length, failed: 0 });
    expect(allowedChecks(output)).toEqual(Object.keys(NEEDS_FIXTURE_TOOL["server-stateless"]).sort());
    expect(code).toBe(0);
  });
});
