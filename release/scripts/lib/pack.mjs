// @ts-check
// Packs published packages the way `pnpm publish` would (workspace:^ and catalog: become real ranges).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
