#!/usr/bin/env node
// publint --strict and arethetypeswrong for every published package (packages/*, apps/*), run on
// the tarball `pnpm pack` makes: pnpm swaps in publishConfig.exports there, so what is checked is
// the package.json users get (without the workspace's "@toolshed/source" condition). The tarballs
// are the run's shared ones (release/scripts/lib/pack.mjs), which the release tests install too.
import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { packedTarballs } from "../release/scripts/lib/pack.mjs";

const root = new URL("..", import.meta.url).pathname;
const bin = (tool) => join(root, "node_modules", ".bin", tool);

/** Runs a command; resolves with its exit code and output. */
function run(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    child.on("error", (error) => resolve({ status: 1, output: String(error) }));
    child.on("close", (status) => resolve({ status, output }));
  });
}

let tarballs;
try {
  tarballs = packedTarballs();
} catch (error) {
  process.stderr.write(`pnpm pack failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}

const checks = [];
let failures = 0;
for (const [name, tarball] of tarballs) {
  // The workspace-only condition points at src/, which is not published.
  const published = spawnSync("tar", ["-xzOf", tarball, "package/package.json"], { encoding: "utf8" });
  if (published.status !== 0 || published.stdout.includes("@toolshed/source")) {
    failures++;
    process.stderr.write(`${name}: the packed package.json still has the "@toolshed/source" condition\n`);
  }
  checks.push({ name, tool: "publint", args: ["--strict", tarball] });
  // Libraries ship CommonJS beside ESM: checked in both node16 modes and for bundlers (not node10,
  // which cannot see subpaths such as /postgres). create-toolshed-pack is ESM only (an npm-create
  // bin); Node 20.19+ loads it with require() too, which attw's node16-cjs mode does not model.
  const dual = published.stdout.includes('"require"');
  const profile = ["--profile", dual ? "node16" : "esm-only"];
  checks.push({ name, tool: "attw", args: [tarball, ...profile, "--format", "ascii"] });
}

// Two at a time: each is one short Node process, mostly start-up.
const queue = [...checks];
const worker = async () => {
  for (let check = queue.shift(); check; check = queue.shift()) {
    const result = await run(bin(check.tool), check.args);
    if (result.status !== 0) {
      failures++;
      process.stderr.write(`${check.name}: ${check.tool} reported problems\n${result.output}\n`);
    } else {
      process.stderr.write(`${check.name}: ${check.tool} ok\n`);
    }
  }
};
await Promise.all([worker(), worker()]);
process.exit(failures === 0 ? 0 : 1);
