// @ts-check
// Where the workspace is and which of its packages are published.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The monorepo root (release/ sits directly under it). */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/**
 * @typedef {{ name: string, version: string, private?: boolean, dependencies?: Record<string, string>,
 *   peerDependencies?: Record<string, string>, peerDependenciesMeta?: Record<string, { optional?: boolean }> }} Manifest
 * @typedef {{ name: string, version: string, dir: string, manifest: Manifest }} WorkspacePackage
 */

/** @param {string} file @returns {any} */
export function readJson(file) {
  return JSON.parse(readFileSync(file, "utf8"));
}

/**
 * Every package under the workspace globs given (default: the published groups packages/* and apps/*).
 * @param {string[]} groups
 * @param {string} root a checkout of the repository (default: this one)
 * @returns {WorkspacePackage[]}
 */
export function workspacePackages(groups = ["packages", "apps"], root = ROOT) {
  /** @type {WorkspacePackage[]} */
  const found = [];
  for (const group of groups) {
    const base = join(root, group);
    if (!existsSync(base)) continue;
    const dirs = existsSync(join(base, "package.json")) ? [base] : readdirSync(base).map((name) => join(base, name));
    for (const dir of dirs) {
      const file = join(dir, "package.json");
      if (!existsSync(file)) continue;
      /** @type {Manifest} */
      const manifest = readJson(file);
      found.push({ name: manifest.name, version: manifest.version, dir, manifest });
    }
  }
  return found.sort((a, b) => a.name.localeCompare(b.name));
}

/** The packages npm users install: every non-private package in packages/* and apps/*. */
export function publishedPackages() {
  return workspacePackages().filter((p) => !p.manifest.private);
}

/**
 * The published @toolshed/* packages that `name` needs at run time, itself included (dependencies, and
 * required peers that are ours).
 * @param {string} name
 * @param {WorkspacePackage[]} published
 * @returns {string[]}
 */
export function internalClosure(name, published = publishedPackages()) {
  const byName = new Map(published.map((p) => [p.name, p]));
  const seen = new Set();
  const visit = (/** @type {string} */ current) => {
    if (seen.has(current)) return;
    const pkg = byName.get(current);
    if (!pkg) return;
    seen.add(current);
    for (const dep of Object.keys(pkg.manifest.dependencies ?? {})) visit(dep);
  };
  visit(name);
  return [...seen].sort();
}

/**
 * The external peers an npm user installs next to `name` (the SDK and zod), with the versions the
 * workspace catalog tests against; optional peers (pg) are left out.
 * @param {string[]} names
 * @param {WorkspacePackage[]} published
 * @returns {string[]}
 */
export function externalPeers(names, published = publishedPackages()) {
  const byName = new Map(published.map((p) => [p.name, p]));
  // A peer that one of these packages already depends on (the apps bundle the SDK and zod) comes with it.
  const bundled = new Set(names.flatMap((name) => Object.keys(byName.get(name)?.manifest.dependencies ?? {})));
  const peers = new Set();
  for (const name of names) {
    const manifest = byName.get(name)?.manifest;
    for (const peer of Object.keys(manifest?.peerDependencies ?? {})) {
      if (manifest?.peerDependenciesMeta?.[peer]?.optional || byName.has(peer) || bundled.has(peer)) continue;
      peers.add(peer);
    }
  }
  return [...peers].sort().map((peer) => `${peer}@${CATALOG[peer] ?? "latest"}`);
}

/**
 * The versions pnpm-workspace.yaml's catalog pins (the ones every workspace test runs against).
 * @returns {Record<string, string>}
 */
function readCatalog() {
  const text = readFileSync(join(ROOT, "pnpm-workspace.yaml"), "utf8");
  const block = text.split(/^catalog:\s*$/m)[1]?.split(/^\S/m)[0] ?? "";
  /** @type {Record<string, string>} */
  const catalog = {};
  for (const match of block.matchAll(/^\s+"?([^":\s]+)"?:\s*(\S+)\s*$/gm)) {
    if (match[1] && match[2]) catalog[match[1]] = match[2];
  }
  return catalog;
}

export const CATALOG = readCatalog();

/**
 * better-sqlite3 is an optional peer of @toolshed/storage, needed only where Node has no
 * node:sqlite (before 22.16): the spec to install next to `names` on this Node, if any.
 * @param {string[]} names @param {string} [version]
 * @returns {string[]}
 */
export function nativeSqlitePeers(names, version = process.versions.node) {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  const hasNodeSqlite = major > 22 || (major === 22 && minor >= 16);
  return names.includes("@toolshed/storage") && !hasNodeSqlite ? ["better-sqlite3@12.11.1"] : [];
}
