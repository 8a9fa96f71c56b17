#!/usr/bin/env node
// @ts-check
// Try a pack or server before it is published: packs the public packages into a folder (as
// `pnpm publish` would) and prints the one `npm install` line that installs the package from those
// tarballs, with every @toolshed/* package it needs and its required peers.
//   node scripts/pack.mjs <package>... [--out DIR]    after npm run build
//   npm run pack-local -- <package>... [--out DIR]    builds first
// The install line is the only thing on stdout; the rest goes to stderr.
import { resolve } from "node:path";
import { packAll } from "../release/scripts/lib/pack.mjs";
import {
  externalPeers,
  internalClosure,
  nativeSqlitePeers,
  publishedPackages,
  ROOT,
} from "../release/scripts/lib/workspace.mjs";

const USAGE = "usage: node scripts/pack.mjs <package>... [--out DIR]   (for example @toolshed/notes, or notes server)";

/** @param {string} message @returns {never} */
function usage(message) {
  process.stderr.write(`pack: ${message}\n${USAGE}\n`);
  process.exit(2);
}

/** A POSIX shell word: left alone when it is safe, else single-quoted. @param {string} word */
function shellWord(word) {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

const args = process.argv.slice(2);
let out = resolve(ROOT, ".toolshed", "tarballs");
/** @type {string[]} */
const wanted = [];
for (let i = 0; i < args.length; i++) {
  const arg = /** @type {string} */ (args[i]);
  if (arg === "--out") {
    const dir = args[++i];
    if (!dir) usage("--out needs a folder");
    out = resolve(dir);
  } else if (arg.startsWith("--out=")) out = resolve(arg.slice(6));
  else if (arg === "--help" || arg === "-h") {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  } else if (arg.startsWith("-")) usage(`unknown flag ${arg}`);
  else wanted.push(arg);
}

const published = publishedPackages();
const names = published.map((p) => p.name);
if (wanted.length === 0) usage(`name a package: ${names.join(", ")}`);
const chosen = wanted.map((asked) => {
  const name = names.find((n) => n === asked || n === `@toolshed/${asked}`);
  return name ?? usage(`no public package ${JSON.stringify(asked)}; choose from ${names.join(", ")}`);
});

let tarballs;
try {
  tarballs = packAll(out);
} catch (error) {
  process.stderr.write(`pack: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
const ours = [...new Set(chosen.flatMap((name) => internalClosure(name, published)))].sort();
const specs = [
  ...ours.map((n) => /** @type {string} */ (tarballs.get(n))),
  ...externalPeers(ours, published),
  // On Node 20 the SQLite stores need the native driver, an optional peer.
  ...nativeSqlitePeers(ours),
];
process.stderr.write(
  `Packed ${tarballs.size} public packages into ${out}.\n` +
    `${chosen.join(" and ")} ${chosen.length > 1 ? "need" : "needs"} ${ours.join(", ")}. In a project of yours (npm init -y), run:\n\n`,
);
process.stdout.write(`npm install ${specs.map(shellWord).join(" ")}\n`);
