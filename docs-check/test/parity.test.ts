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
