// @ts-check
// A fresh npm project outside the workspace, as a user would have one.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mustRun } from "./pack.mjs";
import { userNpmCache } from "./user-npm-cache.mjs";
import { ROOT } from "./workspace.mjs";

/**
 * `npm init -y` in a new folder under os.tmpdir(), with `type: module` unless told `commonjs`
 * (what npm 11's `npm init -y` writes; older npm writes no type, which Node reads the same way).
 * @param {string} prefix
 * @param {"module" | "commonjs"} [type]
 * @returns {string} the folder
 */
export function createNpmProject(prefix, type = "module") {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  mustRun("npm", ["init", "-y"], { cwd: dir });
  const file = join(dir, "package.json");
  const manifest = JSON.parse(readFileSync(file, "utf8"));
  writeFileSync(file, `${JSON.stringify({ ...manifest, type }, null, 2)}\n`);
  return dir;
}

/**
 * `npm install --no-audit --no-fund` of tarball paths and registry specs. better-sqlite3 builds from
 * source when no prebuilt binary is reachable, so callers give this minutes.
 * @param {string} dir @param {string[]} specs
 */
export function npmInstall(dir, specs) {
  mustRun("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...specs], {
    cwd: dir,
    // Keep the workspace's settings (pnpm's npm_config_* from `pnpm exec`) out of the user's install.
    env: cleanEnv(),
  });
}

// Settings a user's own npm would also honour (registry, cache, proxies, certificates).
const KEEP =
  /^npm_config_(registry|cache|userconfig|globalconfig|https?_proxy|proxy|noproxy|no_proxy|cafile|strict_ssl)$/i;

/**
 * The environment minus npm/pnpm settings inherited from the workspace run (pnpm exec sets many),
 * with the npm cache of user-npm-cache.mjs: the machine's registry cache and the workspace's
 * better-sqlite3 binary as a downloaded prebuilt one, so no install compiles it again.
 */
export function cleanEnv() {
  /** @type {NodeJS.ProcessEnv} */
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(npm_|pnpm_)/i.test(key) && !KEEP.test(key)) continue;
    env[key] = value;
  }
  env.npm_config_cache = userNpmCache().cache;
  return env;
}

/**
 * `du -sk node_modules`: the install footprint in KiB.
 * @param {string} dir
 * @returns {number}
 */
export function footprintKiB(dir) {
  const out = mustRun("du", ["-sk", join(dir, "node_modules")]);
  return Number.parseInt(out.split(/\s+/)[0] ?? "", 10);
}

/**
 * The same install without blocking, so several projects can install side by side.
 * @param {string} dir @param {string[]} specs
 * @returns {Promise<void>}
 */
export function npmInstallAsync(dir, specs) {
  return new Promise((resolve, reject) => {
    const child = spawn("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...specs], {
      cwd: dir,
      env: cleanEnv(),
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr = (stderr + chunk).slice(-4000);
    });
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`npm install failed in ${dir}:\n${stderr}`)),
    );
  });
}

/**
 * The workspace's tsc as a strict user runs it (strict, library types checked too, "module":
 * "nodenext") on `files` of the project: writes its tsconfig.json, then compiles. `outDir` emits
 * JavaScript there; without it nothing is emitted.
 * @param {string} dir @param {string[]} files @param {{ outDir?: string }} [options]
 * @returns {{ status: number | null, output: string }} the exit code and stdout plus stderr
 */
export function runTsc(dir, files, options = {}) {
  const emit = options.outDir === undefined ? { noEmit: true } : { outDir: options.outDir, rootDir: "." };
  const compilerOptions = {
    strict: true,
    skipLibCheck: false,
    module: "nodenext",
    moduleResolution: "nodenext",
    target: "ES2022",
    types: ["node"],
    ...emit,
  };
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files }));
  const tsc = spawnSync(process.execPath, [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", dir], {
    cwd: dir,
    encoding: "utf8",
    timeout: 120_000,
  });
  return { status: tsc.status, output: `${tsc.stdout}${tsc.stderr}` };
}
