import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { DOCS, ROOT } from "./markdown.js";

// parity.md names its proofs as `file` › "test name"; each must exist as written.
it("every test that docs/parity.md cites exists in the file it names", () => {
  const page = readFileSync(join(DOCS, "parity.md"), "utf8");
  const refs = [...page.matchAll(/`([\w./-]+\.test\.ts)` › "([^"]+)"/g)];
  expect(refs.length).toBeGreaterThan(20);
  for (const [, file = "", name = ""] of refs) {
    const source = readFileSync(join(ROOT, file), "utf8");
    expect(source.includes(JSON.stringify(name)) || source.includes(`'${name}'`), `${file} › ${name}`).toBe(true);
  }
});

// The introduction's count is the page's: one behaviour per table row and one per difference.
it("docs/parity.md's count matches its table rows and differences, and every difference cites a test", () => {
  const page = readFileSync(join(DOCS, "parity.md"), "utf8");
  const [kept = "", differs = ""] = page.split("## Where Toolshed differs, and why");
  const lines = kept.split("\n");
  // A table row is a `|` line that is neither the header (the line before `|---`) nor the separator.
  const rows = lines.filter((line, i) => line.startsWith("| ") && !lines[i + 1]?.startsWith("|---")).length;
  const differences = differs.split(/\n(?=- \*\*)/).filter((entry) => entry.startsWith("- **"));
  const stated =
    /It lists (\d+) behaviours: (\d+) that Toolshed keeps, in the tables, and\s+(\d+) where it deliberately differs/.exec(
      page,
    );
  expect(stated, "the introduction states the count").not.toBeNull();
  expect(stated?.slice(1).map(Number)).toEqual([rows + differences.length, rows, differences.length]);
  for (const entry of differences) {
    expect(/`[\w./-]+\.test\.ts` › "[^"]+"/.test(entry), `${entry.split("\n")[0]} cites no test`).toBe(true);
  }
});
