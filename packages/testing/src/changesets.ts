import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";

/** The bump a changeset gives a package. */
export type Bump = "major" | "minor" | "patch" | "none";

/** `"@scope/pkg": major` lines between the leading `---` fences (the changesets format). */
export function parseChangesetBumps(text: string): Map<string, Bump> {
  const bumps = new Map<string, Bump>();
  const match = /^\s*---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  if (!match?.[1]) return bumps;
  for (const line of match[1].split(/\r?\n/)) {
    const entry = /^\s*["']?([^"':]+(?::[^"':]+)?)["']?\s*:\s*(major|minor|patch|none)\s*$/.exec(line);
    if (entry?.[1] && entry[2]) bumps.set(entry[1].trim(), entry[2] as Bump);
  }
  return bumps;
}

/** The changeset files in `dir` that bump `packageName` with `major`, sorted. */
export function majorChangesetsFor(dir: string, packageName: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((file) => file.endsWith(".md") && file.toLowerCase() !== "readme.md")
    .sort()
    .filter((file) => parseChangesetBumps(readFileSync(join(dir, file), "utf8")).get(packageName) === "major");
}

/**
 * The changeset files in `dir` that give `packageName` a breaking-change bump, sorted: `major`, or
 * `minor` while `version` is 0.x (npm's caret ranges do not cross a 0.x minor, so it breaks nobody).
 */
export function breakingChangesetsFor(dir: string, packageName: string, version?: string): string[] {
  if (!existsSync(dir)) return [];
  const enough: Bump[] = isZeroMajor(version) ? ["major", "minor"] : ["major"];
  return readdirSync(dir)
    .filter((file) => file.endsWith(".md") && file.toLowerCase() !== "readme.md")
    .sort()
    .filter((file) => {
      const bump = parseChangesetBumps(readFileSync(join(dir, file), "utf8")).get(packageName);
      return bump !== undefined && enough.includes(bump);
    });
}

/** Whether a version is 0.x, where a minor bump is the breaking one. */
export function isZeroMajor(version: string | undefined): boolean {
  return version !== undefined && /^0\.\d+\.\d+/.test(version);
}

/** The first folder at or above `start` that has `name` in it, or undefined. */
function findUp(start: string, name: string, isDir: boolean): string | undefined {
  let dir = start;
  for (;;) {
    const candidate = join(dir, name);
    if (existsSync(candidate) && statSync(candidate).isDirectory() === isDir) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** The `.changeset` folder at or above `start`. */
export function findChangesetDir(start: string): string | undefined {
  return findUp(start, ".changeset", true);
}

/** The `name` of the package.json at or above `start`. */
export function nearestPackageName(start: string): string | undefined {
  return nearestPackage(start)?.name;
}

/** The `name` and `version` of the package.json at or above `start`. */
export function nearestPackage(start: string): { name: string; version?: string } | undefined {
  const file = findUp(start, "package.json", false);
  if (!file) return undefined;
  const { name, version } = JSON.parse(readFileSync(file, "utf8")) as { name?: unknown; version?: unknown };
  if (typeof name !== "string") return undefined;
  return typeof version === "string" ? { name, version } : { name };
}
