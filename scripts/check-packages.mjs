#!/usr/bin/env node
// publint --strict and arethetypeswrong for every published package (packages/*, apps/*), run on
// the tarball `pnpm pack` makes: pnpm swaps in publishConfig.exports there, so what is checked is
// the package.json users get (without the workspace's "@toolshed/source" condition).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const PNPM = ["-y", "pnpm@12.4.2"];
const dirs = ["packages", "apps"].flatMap((group) =>
  existsSync(join(root, group)) ? readdirSync(join(root, group)).map((name) => join(root, group, name)) : [],
);
const packed = mkdtempSync(join(tmpdir(), "toolshed-check-packages-"));
let failures = 0;
try {
  for (const dir of dirs) {
    const manifest = join(dir, "package.json");
    if (!existsSync(manifest)) continue;
    const pkg = JSON.parse(readFileSync(manifest, "utf8"));
    if (pkg.private) continue;
    const dest = join(packed, pkg.name.replace("/", "+"));
    const pack = spawnSync("npx", [...PNPM, "pack", "--pack-destination", dest], { cwd: dir, encoding: "utf8" });
    const tarball = existsSync(dest) ? readdirSync(dest).find((file) => file.endsWith(".tgz")) : undefined;
    if (pack.status !== 0 || !tarball) {
      failures++;
      process.stderr.write(`${pkg.name}: pnpm pack failed\n${pack.stdout}${pack.stderr}\n`);
      continue;
    }
    // The workspace-only condition points at src/, which is not published.
    const published = spawnSync("tar", ["-xzOf", join(dest, tarball), "package/package.json"], { encoding: "utf8" });
    if (published.status !== 0 || published.stdout.includes("@toolshed/source")) {
      failures++;
      process.stderr.write(`${pkg.name}: the packed package.json still has the "@toolshed/source" condition\n`);
    }
    for (const [tool, args] of [
      ["publint", ["--strict", join(dest, tarball)]],
      // ESM only: Node 20.19+ loads it with require() too, which attw's node16-cjs mode does not model.
      ["attw", [join(dest, tarball), "--profile", "esm-only", "--format", "ascii"]],
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
} finally {
  rmSync(packed, { recursive: true, force: true });
}
process.exit(failures === 0 ? 0 : 1);
