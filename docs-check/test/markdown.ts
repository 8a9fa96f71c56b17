import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const DOCS = join(ROOT, "docs");
export const DOC_EXAMPLES = join(DOCS, "examples");

/** First line of a ```ts block that is type-checked on its own but is not an example file. */
export const FRAGMENT_MARK = "// docs-check: fragment";

export interface CodeBlock {
  /** Markdown file, relative to the repository root. */
  file: string;
  lang: string;
  code: string;
  /** 1-based line of the opening fence. */
  line: number;
}

/** Fenced code blocks of a markdown file, with the text exactly as between the fences. */
export function codeBlocks(path: string): CodeBlock[] {
  const text = readFileSync(path, "utf8");
  const blocks: CodeBlock[] = [];
  for (const match of text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)) {
    const line = text.slice(0, match.index).split("\n").length;
    blocks.push({ file: relative(ROOT, path), lang: match[1] ?? "", code: match[2] ?? "", line });
  }
  return blocks;
}

function markdownIn(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "examples" ? [] : markdownIn(path);
    return entry.name.endsWith(".md") ? [path] : [];
  });
}

/** Every markdown page under docs/. */
export function docPages(): string[] {
  return markdownIn(DOCS).sort();
}

/** The package folders that have a README, with the root README first. */
export function readmeFolders(): string[] {
  const folders = ["packages", "apps"].flatMap((group) =>
    readdirSync(join(ROOT, group), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(ROOT, group, entry.name, "README.md")))
      .map((entry) => join(ROOT, group, entry.name)),
  );
  return [ROOT.replace(/\/$/, ""), ...folders.sort()];
}

/** The .ts files of an examples folder, by file name. */
export function exampleFiles(dir: string): Map<string, string> {
  if (!existsSync(dir)) return new Map();
  return new Map(
    readdirSync(dir)
      .filter((name) => name.endsWith(".ts"))
      .map((name) => [name, readFileSync(join(dir, name), "utf8")]),
  );
}
