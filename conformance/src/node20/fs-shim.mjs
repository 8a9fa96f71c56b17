// node:fs plus fs.globSync (Node 22) on top of tinyglobby: paths relative to `cwd`, as Node's.
import fs from "node:fs";
import { globSync as tinyGlobSync } from "tinyglobby";

export * from "node:fs";
export default fs;

export function globSync(pattern, options = {}) {
  const patterns = Array.isArray(pattern) ? pattern : [pattern];
  const exclude = typeof options.exclude === "function" ? undefined : options.exclude;
  return tinyGlobSync(patterns, {
    cwd: options.cwd === undefined ? process.cwd() : String(options.cwd),
    ignore: exclude,
    expandDirectories: false,
    onlyFiles: false,
  });
}
