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
  const file = findUp(start, "package.json", false);
  if (!file) return undefined;
  const name = (JSON.parse(readFileSync(file, "utf8")) as { name?: unknown }).name;
  return typeof name === "string" ? name : undefined;
}
