import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/**
 * The root of the Toolshed monorepo that holds `folder` (which need not exist yet): the nearest
 * folder upwards with a pnpm-workspace.yaml and a package.json named "toolshed". Undefined when
 * `folder` is not inside it, including inside another pnpm workspace.
 */
export function findToolshedWorkspace(folder: string): string | undefined {
  let at = resolve(folder);
  for (;;) {
    if (existsSync(join(at, "pnpm-workspace.yaml"))) {
      return manifestName(join(at, "package.json")) === "toolshed" ? at : undefined;
    }
    const parent = dirname(at);
    if (parent === at) return undefined;
    at = parent;
  }
}

function manifestName(file: string): string | undefined {
  try {
    const name = (JSON.parse(readFileSync(file, "utf8")) as { name?: unknown }).name;
    return typeof name === "string" ? name : undefined;
  } catch {
    return undefined;
  }
}
