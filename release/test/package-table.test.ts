import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, expect, it } from "vitest";
import { packedTarballs } from "../scripts/lib/pack.mjs";
import { footprintNames, parseSizes, type SizeRow, sizeRows } from "../scripts/lib/package-table.mjs";
import { publishedPackages, ROOT } from "../scripts/lib/workspace.mjs";

// docs/packages.md must describe the tarballs these sources make. Files and bytes are ours alone, so
// they are compared exactly; gzip output may differ by a few bytes between zlib builds, so the
// tarball size may differ by 2%.
const HOW = "docs/packages.md is out of date: run `node release/scripts/package-table.mjs` after `npm run build`";
let measured: SizeRow[];
let documented: SizeRow[];
let text: string;

beforeAll(() => {
  measured = sizeRows(packedTarballs(), publishedPackages());
  text = readFileSync(join(ROOT, "docs", "packages.md"), "utf8");
  documented = parseSizes(text);
});

it("the sizes table of docs/packages.md matches the tarballs of every public package", () => {
  expect(
    documented.map((row) => row.name),
    HOW,
  ).toEqual(measured.map((row) => row.name));
  for (const row of measured) {
    const shown = documented.find((r) => r.name === row.name) as SizeRow;
    const { tarball, ...exact } = row;
    const { tarball: shownTarball, ...shownExact } = shown;
    expect(shownExact, `${row.name}: ${HOW}`).toEqual(exact);
    expect(Math.abs(shownTarball - tarball) / tarball, `${row.name} tarball ${tarball} bytes: ${HOW}`).toBeLessThan(
      0.02,
    );
  }
});

it("the install footprint table names every public package", () => {
  expect(
    footprintNames(text),
    "measure the footprint: node release/scripts/package-table.mjs --footprint (needs the registry)",
  ).toEqual(measured.map((row) => row.name));
});
