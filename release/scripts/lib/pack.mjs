// @ts-check
// Packs published packages the way `pnpm publish` would (workspace:^ and catalog: become real ranges).
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { publishedPackages, ROOT } from "./workspace.mjs";

export const PNPM = ["-y", "pnpm@12.4.2"];

/**
 * Runs a command and returns its stdout; throws with the command's output when it fails.
 * @param {string} command @param {string[]} args @param {import("node:child_process").SpawnSyncOptions} options
 * @returns {string}
 */
export function mustRun(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, ...options });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} failed (exit ${result.status}) in ${String(options.cwd ?? process.cwd())}\n` +
        `${String(result.stdout ?? "").slice(-4000)}\n${String(result.stderr ?? "").slice(-4000)}`,
    );
  }
  return String(result.stdout ?? "");
}

/** The tarball file name npm and pnpm give `@scope/name@version`. @param {string} name @param {string} version */
export function tarballName(name, version) {
  return `${name.replace(/^@/, "").replace("/", "-")}-${version}.tgz`;
}

/**
 * Packs every published package (or only the ones named) into `dest` (one pnpm call) and returns
 * name -> tarball path. Fails when a package has no dist: run the build first.
 * @param {string} dest
 * @param {string[]} [names] only these packages, e.g. internalClosure("@toolshed/http")
 * @returns {Map<string, string>}
 */
export function packAll(dest, names) {
  const published = publishedPackages();
  const unknown = names?.find((name) => !published.some((p) => p.name === name));
  if (unknown)
    throw new Error(`no published package ${unknown}; choose from ${published.map((p) => p.name).join(", ")}`);
  const packages = names ? published.filter((p) => names.includes(p.name)) : published;
  for (const pkg of packages) {
    if (!existsSync(join(pkg.dir, "dist"))) throw new Error(`${pkg.name} has no dist/: build it first (npm run build)`);
  }
  mkdirSync(dest, { recursive: true });
  const filters = packages.flatMap((p) => ["--filter", p.name]);
  mustRun("npx", [...PNPM, "-r", ...filters, "pack", "--pack-destination", dest], { cwd: ROOT });
  const tarballs = new Map();
  for (const pkg of packages) {
    const file = join(dest, tarballName(pkg.name, pkg.version));
    if (!existsSync(file)) throw new Error(`pnpm pack made no ${file} (found: ${readdirSync(dest).join(", ")})`);
    tarballs.set(pkg.name, file);
  }
  return tarballs;
}

const PACKED = join(ROOT, "node_modules", ".cache", "toolshed-tarballs");

/**
 * A digest of everything `pnpm pack` reads for the published packages: each package's files (not its
 * node_modules) and the workspace catalog that fills in its ranges.
 * @param {import("./workspace.mjs").WorkspacePackage[]} published
 */
function packInputsDigest(published) {
  const hash = createHash("sha256");
  hash.update(readFileSync(join(ROOT, "pnpm-workspace.yaml")));
  /** @param {string} base @param {string} dir */
  const walk = (base, dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name === "node_modules" || entry.name === ".turbo") continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(base, path);
      else if (entry.isFile()) hash.update(`\0${relative(base, path)}\0`).update(readFileSync(path));
    }
  };
  for (const pkg of published) {
    hash.update(`\0package ${pkg.name}\0`);
    walk(pkg.dir, pkg.dir);
  }
  return hash.digest("hex").slice(0, 16);
}

/**
 * The tarballs of the published packages (or the ones named) as their files are now, packed once:
 * node_modules/.cache/toolshed-tarballs/<digest of what pack reads> is reused by every test and check
 * of a run, and by later runs while nothing changes. Callers must not modify the files.
 * @param {string[]} [names]
 * @returns {Map<string, string>}
 */
export function packedTarballs(names) {
  const published = publishedPackages();
  const unknown = names?.find((name) => !published.some((p) => p.name === name));
  if (unknown)
    throw new Error(`no published package ${unknown}; choose from ${published.map((p) => p.name).join(", ")}`);
  const dir = join(PACKED, packInputsDigest(published));
  if (!existsSync(dir)) {
    mkdirSync(PACKED, { recursive: true });
    const partial = mkdtempSync(`${dir}.partial-`);
    try {
      packAll(partial);
      renameSync(partial, dir);
    } catch (error) {
      // Another process of this run packed the same files first: theirs are the same.
      if (!existsSync(dir)) throw error;
    } finally {
      rmSync(partial, { recursive: true, force: true });
    }
    // Older packings are of files that changed since; one an hour old is no longer in use.
    for (const entry of readdirSync(PACKED)) {
      const path = join(PACKED, entry);
      if (path !== dir && Date.now() - statSync(path).mtimeMs > 3_600_000)
        rmSync(path, { recursive: true, force: true });
    }
  }
  const tarballs = new Map();
  for (const pkg of published) {
    if (names && !names.includes(pkg.name)) continue;
    tarballs.set(pkg.name, join(dir, tarballName(pkg.name, pkg.version)));
  }
  return tarballs;
}

/**
 * Bytes of the files a tarball holds once unpacked.
 * @param {string} tarball
 * @returns {number}
 */
export function unpackedBytes(tarball) {
  return unpackedStats(tarball).bytes;
}

/**
 * How many files a tarball holds, and their bytes once unpacked (what npm calls unpackedSize).
 * @param {string} tarball
 * @returns {{ files: number, bytes: number }}
 */
export function unpackedStats(tarball) {
  const dir = mkdtempSync(join(tmpdir(), "toolshed-unpack-"));
  try {
    mustRun("tar", ["-xzf", tarball, "-C", dir]);
    return statsOf(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** @param {string} path @returns {{ files: number, bytes: number }} */
function statsOf(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return { files: 1, bytes: stat.size };
  return readdirSync(path).reduce(
    (sum, name) => {
      const inner = statsOf(join(path, name));
      return { files: sum.files + inner.files, bytes: sum.bytes + inner.bytes };
    },
    { files: 0, bytes: 0 },
  );
}
