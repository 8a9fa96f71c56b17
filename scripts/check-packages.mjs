#!/usr/bin/env node
// publint --strict and arethetypeswrong for every published package (packages/*, apps/*).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const dirs = ["packages", "apps"].flatMap((group) =>
  existsSync(join(root, group)) ? readdirSync(join(root, group)).map((name) => join(root, group, name)) : [],
);
let failures = 0;
for (const dir of dirs) {
  const manifest = join(dir, "package.json");
  if (!existsSync(manifest)) continue;
  const pkg = JSON.parse(readFileSync(manifest, "utf8"));
  if (pkg.private) continue;
  for (const [tool, args] of [
    ["publint", ["--strict", "--pack", "npm"]],
    // ESM only: Node 20.19+ loads it with require() too, which attw's node16-cjs mode does not model.
    ["attw", ["--pack", ".", "--profile", "esm-only", "--format", "ascii"]],
  ]) {
    const result = spawnSync("npx", ["--no-install", tool, ...args], { cwd: dir, encoding: "utf8" });
    if (result.status !== 0) {
      failures++;
      process.stderr.write(`${pkg.name}: ${tool} reported problems\n${result.stdout}${result.stderr}\n`);
    } else {
      process.stderr.write(`${pkg.name}: ${tool} ok\n`);
    }
  }
}
process.exit(failures === 0 ? 0 : 1);
