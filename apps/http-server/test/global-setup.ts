import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

// The end-to-end tests start the built bin; build it once, before any test file runs.
export default function setup(): void {
  const root = fileURLToPath(new URL("..", import.meta.url));
  if (existsSync(`${root}dist/cli.js`) && existsSync(`${root}dist/index.js`)) return;
  execFileSync("npx", ["--no-install", "tsup"], { cwd: root, stdio: "inherit" });
}
