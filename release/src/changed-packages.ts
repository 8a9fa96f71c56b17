import { relative } from "node:path";

/**
 * Whether a file inside a package folder changes what npm users get. Tests, examples, the
 * contract snapshot and config used only in the workspace do not; sources, the manifest and the
 * README (npm always ships it) do.
 */
export function shipsToUsers(pathInPackage: string): boolean {
  if (/(^|\/)[^/]+\.test\.[cm]?[jt]sx?$/.test(pathInPackage)) return false;
  if (/^(test|tests|examples|scripts)\//.test(pathInPackage)) return false;
  if (pathInPackage === "package.json" || /^readme(\.md)?$/i.test(pathInPackage)) return true;
  if (pathInPackage === "tsup.config.ts" || pathInPackage === "tsconfig.json") return true;
  return pathInPackage.startsWith("src/");
}

/** The published packages whose shipped files are among `files` (paths relative to the repo root). */
export function changedPublishedPackages(
  root: string,
  files: string[],
  published: Array<{ name: string; dir: string }>,
): Map<string, string[]> {
  const changed = new Map<string, string[]>();
  for (const pkg of published) {
    const folder = relative(root, pkg.dir).split("\\").join("/");
    const own = files.filter((file) => file.startsWith(`${folder}/`) && shipsToUsers(file.slice(folder.length + 1)));
    if (own.length > 0) changed.set(pkg.name, own);
  }
  return changed;
}
