import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export type Bump = "major" | "minor" | "patch" | "none";

/** The packages each pending changeset in `dir` bumps, read from its front matter. */
export function readChangesetBumps(dir: string): Array<{ file: string; bumps: Map<string, Bump> }> {
  return readdirSync(dir)
    .filter((file) => file.endsWith(".md") && file.toLowerCase() !== "readme.md")
    .sort()
    .map((file) => ({ file, bumps: parseFrontMatter(readFileSync(join(dir, file), "utf8")) }));
}

/** `"@toolshed/tickets": major` lines between the leading `---` fences (the changesets format). */
export function parseFrontMatter(text: string): Map<string, Bump> {
  const bumps = new Map<string, Bump>();
  const match = /^\s*---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  if (!match?.[1]) return bumps;
  for (const line of match[1].split(/\r?\n/)) {
    const entry = /^\s*["']?([^"':]+(?::[^"':]+)?)["']?\s*:\s*(major|minor|patch|none)\s*$/.exec(line);
    if (entry?.[1] && entry[2]) bumps.set(entry[1].trim(), entry[2] as Bump);
  }
  return bumps;
}

/** The changeset files that bump `name` with `major`. */
export function majorChangesetsFor(dir: string, name: string): string[] {
  return readChangesetBumps(dir)
    .filter(({ bumps }) => bumps.get(name) === "major")
    .map(({ file }) => file);
}
