import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

// The MCP Inspector CLI is a client we did not write: it lists the tools with its schema lint
// (--strict) and calls one tool over stdio. It comes from the npm registry through npx.
it("the MCP Inspector CLI lists the tools (--strict, no findings) and calls get_note over stdio", () => {
  const script = fileURLToPath(new URL("../scripts/inspector-check.mjs", import.meta.url));
  const run = spawnSync(process.execPath, [script], { encoding: "utf8", timeout: 240_000 });
  expect(run.stderr + run.stdout).not.toMatch(/FAIL/);
  expect(run.status).toBe(0);
}, 300_000);
