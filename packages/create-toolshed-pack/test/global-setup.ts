import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

// The tests run the built command as npm would; rebuild it when a source is newer than dist/cli.js.
const PACKAGE = fileURLToPath(new URL("..", import.meta.url));

function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

export default function setup(): void {
  const cli = join(PACKAGE, "dist", "cli.js");
  const sources = Math.max(
    newest(join(PACKAGE, "src")),
    newest(join(PACKAGE, "package.json")),
    newest(join(PACKAGE, "tsup.config.ts")),
  );
  if (existsSync(cli) && statSync(cli).mtimeMs >= sources) return;
  const tsup = join(PACKAGE, "node_modules", ".bin", "tsup");
  const run = spawnSync(tsup, [], { cwd: PACKAGE, encoding: "utf8" });
  if (run.status !== 0) throw new Error(`building create-toolshed-pack failed:\n${run.stdout}\n${run.stderr}`);
}
