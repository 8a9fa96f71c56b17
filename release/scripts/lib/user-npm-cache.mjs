// @ts-check
// The npm cache the tests' user installs run with: the machine's own registry cache, plus the
// better-sqlite3 binary the workspace install already built, laid where prebuild-install looks for a
// downloaded prebuilt binary. A Node 20 user's `npm install better-sqlite3` downloads that binary
// from GitHub; this machine cannot reach GitHub, so without it every install compiled the addon from
// source again (a minute or more each). The install path stays the user's: npm runs better-sqlite3's
// install script, prebuild-install finds the binary and unpacks it, and the addon loads.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, symlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";
import { ROOT } from "./workspace.mjs";

const DIR = join(ROOT, "node_modules", ".cache", "toolshed-user-npm");

/** The npm cache a plain `npm` of this user uses. */
function machineCache() {
  const configured = process.env.npm_config_cache;
  if (configured && !configured.startsWith(DIR)) return configured;
  try {
    return execFileSync("npm", ["config", "get", "cache"], { encoding: "utf8", timeout: 30_000 }).trim();
  } catch {
    return join(homedir(), ".npm");
  }
}

/**
 * Where prebuild-install (as better-sqlite3's install script runs it on this Node) looks for a
 * downloaded binary under `cache`, computed with the workspace's own prebuild-install.
 * @param {string} cache
 */
function prebuildPath(cache) {
  const requireFromAddon = createRequire(
    createRequire(join(ROOT, "packages", "storage", "package.json")).resolve("better-sqlite3/package.json"),
  );
  const pkg = requireFromAddon("./package.json");
  const util = requireFromAddon("prebuild-install/util");
  const url = util.getDownloadUrl({
    pkg,
    runtime: "node",
    abi: process.versions.modules,
    platform: process.platform,
    arch: process.arch,
    libc: "",
    "tag-prefix": "v",
  });
  const previous = process.env.npm_config_cache;
  process.env.npm_config_cache = cache;
  try {
    return { file: util.cachedPrebuild(url), addonDir: dirname(requireFromAddon.resolve("./package.json")) };
  } finally {
    if (previous === undefined) delete process.env.npm_config_cache;
    else process.env.npm_config_cache = previous;
  }
}

/** @type {{ cache: string, prebuilt: string | undefined } | undefined} */
let prepared;

/**
 * Prepares the cache folder once per process and returns it, with the prebuilt binary it holds
 * (undefined, with the reason, when the workspace has none that loads on this Node: installs then
 * compile better-sqlite3 as before).
 * @returns {{ cache: string, prebuilt: string | undefined, reason?: string }}
 */
export function userNpmCache() {
  if (prepared) return prepared;
  mkdirSync(DIR, { recursive: true });
  const shared = join(machineCache(), "_cacache");
  const link = join(DIR, "_cacache");
  if (!existsSync(link)) {
    mkdirSync(shared, { recursive: true });
    try {
      symlinkSync(shared, link, "dir");
    } catch (error) {
      // Another test process made it first.
      if (/** @type {NodeJS.ErrnoException} */ (error).code !== "EEXIST") throw error;
    }
  }
  let found;
  try {
    found = prebuildPath(DIR);
  } catch (error) {
    prepared = { cache: DIR, prebuilt: undefined };
    return { ...prepared, reason: `no better-sqlite3 in the workspace (${String(error).split("\n")[0]})` };
  }
  const { file, addonDir } = found;
  const addon = join(addonDir, "build", "Release", "better_sqlite3.node");
  // Only a binary this Node loads: one built for another ABI would make every install fail.
  const loads = spawnSync(process.execPath, ["-e", `require(${JSON.stringify(addon)})`], { encoding: "utf8" });
  if (loads.status !== 0) {
    prepared = { cache: DIR, prebuilt: undefined };
    return { ...prepared, reason: `the workspace's ${addon} does not load on Node ${process.version}` };
  }
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    const partial = `${file}.${process.pid}.tmp`;
    // The layout of better-sqlite3's release assets: build/Release/better_sqlite3.node.
    execFileSync("tar", ["-czf", partial, "-C", addonDir, "build/Release/better_sqlite3.node"]);
    renameSync(partial, file);
  }
  prepared = { cache: DIR, prebuilt: basename(file) };
  return prepared;
}

/** True when an installed better-sqlite3 under `project` was compiled there (node-gyp leaves a Makefile). */
export function compiledInPlace(/** @type {string} */ project) {
  const dir = join(project, "node_modules", "better-sqlite3", "build");
  return existsSync(join(dir, "Makefile")) || existsSync(join(dir, "Release", "obj.target"));
}

/** The version of better-sqlite3 installed under `project`, if any. */
export function installedBetterSqlite3(/** @type {string} */ project) {
  const file = join(project, "node_modules", "better-sqlite3", "package.json");
  return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")).version : undefined;
}
