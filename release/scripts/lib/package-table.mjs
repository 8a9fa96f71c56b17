// @ts-check
// The tables of docs/packages.md. The sizes table holds only what our own tarballs decide (the same
// on every machine for the same sources); the install footprint depends on the registry and the
// machine, so it is measured on request and kept as it was otherwise.
import { statSync } from "node:fs";
import { unpackedStats } from "./pack.mjs";
import { internalClosure } from "./workspace.mjs";

export const SIZES_HEADING = "## Tarballs";
export const FOOTPRINT_HEADING = "## Install footprint";
const SIZES_HEADER = [
  "| package | files | tarball (bytes) | unpacked (bytes) | with its `@toolshed/*` dependencies (unpacked bytes) | other packages it pulls in |",
  "|---|---:|---:|---:|---:|---|",
];

/**
 * @typedef {{ name: string, files: number, tarball: number, unpacked: number, withOurs: number, others: string }} SizeRow
 * @typedef {import("./workspace.mjs").WorkspacePackage} WorkspacePackage
 */

/**
 * One row per published package, from its tarball and the tarballs of what it needs.
 * @param {Map<string, string>} tarballs name -> .tgz path
 * @param {WorkspacePackage[]} published
 * @returns {SizeRow[]}
 */
export function sizeRows(tarballs, published) {
  /** @type {Map<string, { files: number, bytes: number }>} */
  const stats = new Map();
  const statsOf = (/** @type {string} */ name) => {
    let found = stats.get(name);
    if (!found) {
      found = unpackedStats(/** @type {string} */ (tarballs.get(name)));
      stats.set(name, found);
    }
    return found;
  };
  return published.map((pkg) => {
    const ours = internalClosure(pkg.name, published);
    return {
      name: pkg.name,
      files: statsOf(pkg.name).files,
      tarball: statSync(/** @type {string} */ (tarballs.get(pkg.name))).size,
      unpacked: statsOf(pkg.name).bytes,
      withOurs: ours.reduce((sum, name) => sum + statsOf(name).bytes, 0),
      others: otherPackages(ours, published),
    };
  });
}

/**
 * The registry packages an install of these pulls in directly: dependencies and required peers
 * that are not ours, by name (versions come from the registry on the day).
 * @param {string[]} ours @param {WorkspacePackage[]} published
 */
function otherPackages(ours, published) {
  const byName = new Map(published.map((p) => [p.name, p]));
  /** @type {Map<string, string>} */
  const found = new Map();
  for (const name of ours) {
    const manifest = byName.get(name)?.manifest;
    for (const dep of Object.keys(manifest?.dependencies ?? {})) {
      if (!byName.has(dep)) found.set(dep, `\`${dep}\``);
    }
    for (const peer of Object.keys(manifest?.peerDependencies ?? {})) {
      if (byName.has(peer) || manifest?.peerDependenciesMeta?.[peer]?.optional || found.has(peer)) continue;
      found.set(peer, `\`${peer}\` (peer)`);
    }
  }
  const names = [...found.keys()].sort();
  return names.length ? names.map((name) => found.get(name)).join(", ") : "none";
}

/** @param {number} n */
const grouped = (n) => n.toLocaleString("en-US");

/** @param {SizeRow[]} rows */
export function renderSizes(rows) {
  return [
    ...SIZES_HEADER,
    ...rows.map(
      (r) =>
        `| \`${r.name}\` | ${r.files} | ${grouped(r.tarball)} | ${grouped(r.unpacked)} | ${grouped(r.withOurs)} | ${r.others} |`,
    ),
  ].join("\n");
}

/**
 * The sizes table of a docs/packages.md text, read back.
 * @param {string} text
 * @returns {SizeRow[]}
 */
export function parseSizes(text) {
  const section = text.split(SIZES_HEADING)[1]?.split("\n## ")[0] ?? "";
  const number = (/** @type {string | undefined} */ cell) => Number((cell ?? "").replaceAll(",", ""));
  return section
    .split("\n")
    .filter((line) => line.startsWith("| `"))
    .map((line) => {
      const cells = line
        .slice(1, -1)
        .split(" | ")
        .map((cell) => cell.trim());
      return {
        name: (cells[0] ?? "").replaceAll("`", ""),
        files: number(cells[1]),
        tarball: number(cells[2]),
        unpacked: number(cells[3]),
        withOurs: number(cells[4]),
        others: cells[5] ?? "",
      };
    });
}

/**
 * The package names in the install footprint table of a docs/packages.md text.
 * @param {string} text
 */
export function footprintNames(text) {
  const section = text.split(FOOTPRINT_HEADING)[1]?.split("\n## ")[0] ?? "";
  return section
    .split("\n")
    .filter((line) => line.startsWith("| `"))
    .map((line) => (line.split(" | ")[0] ?? "").replaceAll(/[|`\s]/g, ""));
}
