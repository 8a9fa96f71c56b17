import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { RULES } from "../src/index.js";
import { cleanUp, ROOT, runCli, tempDb } from "./helpers.js";

afterAll(cleanUp);

const page = readFileSync(join(ROOT, "docs", "audit.md"), "utf8");

// Each report on the page follows the command that printed it: a one-line sh block, then a text block.
const runs = [
  ...page.matchAll(
    /```sh\n((?:TOOLSHED_DB=\S+ )?node packages\/audit\/dist\/cli\.js -- [^\n]+)\n```\n\n```text\n([\s\S]*?)```/g,
  ),
].map((m) => ({ command: m[1] as string, report: m[2] as string }));

describe("docs/audit.md", () => {
  it("shows three reports and lists every rule with its title", () => {
    expect(runs).toHaveLength(3);
    for (const rule of RULES)
      expect(page).toContain(`\n| ${rule.id} | ${rule.title} | ${rule.contract.join(", ")} | ${rule.weight} |`);
  });

  it.each(runs.map((r) => [r.command, r]))(
    "%s prints exactly the report shown",
    async (_command, { command, report }) => {
      const env = /^TOOLSHED_DB=\S+ /.test(command) ? { TOOLSHED_DB: tempDb() } : undefined;
      const argv = command
        .replace(/^TOOLSHED_DB=\S+ /, "")
        .replace(/^node packages\/audit\/dist\/cli\.js /, "")
        .split(" ");
      const { code, stdout } = await runCli(
        argv.map((a) => (a === "node" ? process.execPath : a)),
        { cwd: ROOT, ...(env ? { env } : {}) },
      );
      expect(code).toBe(0);
      expect(stdout.replace(process.execPath, "node")).toBe(report);
      const score = /score (\d+)\/100\n$/.exec(report)?.[1];
      const name = /examples\/sdk-server/.test(command)
        ? "SDK `McpServer` example"
        : /fastmcp/.test(command)
          ? "FastMCP example"
          : "Toolshed stdio server";
      expect(page, `the comparison table's score for ${name}`).toMatch(
        new RegExp(`^\\| ${name.replace(/[`()]/g, "\\$&")}[^|]*\\| ${score} \\|`, "m"),
      );
    },
  );
});
