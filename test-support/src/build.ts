import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

// Tests that start a built bin or load dist/ in a child process call this from a vitest global
// setup: it builds what they run when a source is newer than its build, and is a few stat calls
// otherwise. (Tests in-process read sources through the "@toolshed/source" export condition.)

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const GROUPS = ["packages", "apps"];
/** What a build reads besides src/ (turbo.json's build inputs). */
const INPUT_FILES = ["package.json", "tsup.config.ts", "tsconfig.json"];

interface WorkspacePackage {
  name: string;
  dir: string;
  /** Workspace packages it depends on (any kind of dependency). */
  deps: string[];
}

function workspacePackages(): Map<string, WorkspacePackage> {
  const found = new Map<string, WorkspacePackage>();
  for (const group of GROUPS) {
    for (const entry of readdirSync(join(ROOT, group))) {
      const dir = join(ROOT, group, entry);
      if (!existsSync(join(dir, "tsup.config.ts"))) continue;
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      const ranges = {
        ...manifest.dependencies,
        ...manifest.devDependencies,
        ...manifest.peerDependencies,
        ...manifest.optionalDependencies,
      } as Record<string, string>;
      const deps = Object.keys(ranges).filter((dep) => ranges[dep]?.startsWith("workspace:"));
      found.set(manifest.name, { name: manifest.name, dir, deps });
    }
  }
  return found;
}

/** `names` and every workspace package they depend on, dependencies first. */
function closure(names: readonly string[], all: Map<string, WorkspacePackage>): WorkspacePackage[] {
  const ordered: WorkspacePackage[] = [];
  const seen = new Set<string>();
  const visit = (name: string) => {
    const pkg = all.get(name);
    if (!pkg || seen.has(name)) return;
    seen.add(name);
    for (const dep of pkg.deps) visit(dep);
    ordered.push(pkg);
  };
  for (const name of names) {
    if (!all.has(name)) throw new Error(`buildIfStale: no workspace package ${name} with a tsup build`);
    visit(name);
  }
  return ordered;
}

/** Newest modification time of the files under `path` that `keep` accepts (0 when there are none). */
function newest(path: string, keep: (file: string) => boolean): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return keep(path) ? stat.mtimeMs : 0;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name), keep)));
}

/** Oldest modification time of the files under dist/ (0 when there is no build). */
function oldestOutput(dir: string): number {
  const walk = (path: string): number[] => {
    const stat = statSync(path);
    return stat.isDirectory() ? readdirSync(path).flatMap((name) => walk(join(path, name))) : [stat.mtimeMs];
  };
  const times = existsSync(join(dir, "dist")) ? walk(join(dir, "dist")) : [];
  return times.length === 0 ? 0 : Math.min(...times);
}

/** Newest modification time of what the package's build reads; tests beside the sources do not count. */
function newestInput(pkg: WorkspacePackage): number {
  const source = newest(join(pkg.dir, "src"), (file) => !/\.test\.ts$/.test(file));
  return Math.max(source, ...INPUT_FILES.map((file) => newest(join(pkg.dir, file), () => true)));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One build of a package at a time on this machine (two test runs, or two projects of one run). */
async function withLock<T>(pkg: WorkspacePackage, work: () => T): Promise<T> {
  const cache = join(pkg.dir, "node_modules", ".cache");
  mkdirSync(cache, { recursive: true });
  const lock = join(cache, "toolshed-build.lock");
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock left by a killed run is older than any build takes.
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 10 * 60_000) rmSync(lock, { recursive: true });
      if (Date.now() > deadline) throw new Error(`buildIfStale: ${lock} is held for too long`);
      await sleep(250);
    }
  }
  try {
    return work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * Builds (tsup) the workspace packages named, and the ones they depend on, whose dist/ is older
 * than their sources, dependencies first. A package named is also rebuilt when a source of any
 * package it depends on is newer than its dist/, since a bin may bundle them (toolshed-stdio does).
 */
export async function buildIfStale(names: readonly string[]): Promise<void> {
  const all = workspacePackages();
  const packages = closure(names, all);
  const inputs = new Map(packages.map((pkg) => [pkg.name, newestInput(pkg)]));
  for (const pkg of packages) {
    const needs = names.includes(pkg.name) ? closure([pkg.name], all) : [pkg];
    const stale = () => oldestOutput(pkg.dir) < Math.max(...needs.map((p) => inputs.get(p.name) ?? 0));
    if (!stale()) continue;
    await withLock(pkg, () => {
      if (!stale()) return; // built by another run while this one waited
      process.stderr.write(`building ${pkg.name}: its sources are newer than its dist/\n`);
      const tsup = join(ROOT, "node_modules", ".bin", "tsup");
      try {
        execFileSync(tsup, [], { cwd: pkg.dir, stdio: "pipe", encoding: "utf8" });
      } catch (error) {
        const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
        throw new Error(`tsup failed in ${pkg.dir}\n${stdout}${stderr}`);
      }
    });
  }
}
