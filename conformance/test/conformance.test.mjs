// The official MCP conformance suite, run the way CI runs it: the whole active server suite
// against the fixture pack, and the generic scenarios against the real server with its packs.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { GENERIC_SCENARIOS } from "../run.mjs";
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

function totals(output) {
  const match = output.match(/^(\d+) passed, (\d+) failed \(scenarios/m);
  return match ? { passed: Number(match[1]), failed: Number(match[2]) } : undefined;
}

let server;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("official conformance suite (@modelcontextprotocol/conformance 0.1.16)", () => {
  it("every active server scenario passes against the fixture pack in sessions mode", async () => {
    const { code, output } = await runSuite([]);
    expect(output).not.toMatch(/^✗ /m);
    expect(totals(output)).toEqual({ passed: 30, failed: 0 });
    expect(code).toBe(0);
  });

  it.each([
    ["stateless", false],
    ["sessions", true],
  ])("the generic scenarios pass against the three packs (%s)", async (_mode, sessions) => {
    server = await startPacksServer({ sessions });
    const { code, output } = await runSuite(["--url", server.url]);
    expect(totals(output)).toEqual({ passed: GENERIC_SCENARIOS.length, failed: 0 });
    expect(code).toBe(0);
  });
});
