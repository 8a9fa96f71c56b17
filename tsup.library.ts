import type { Options } from "tsup";

/**
 * The build of a published library's entries: ES modules and CommonJS side by side, each with its
 * own types, so a require() user loads the same SDK copy as their own code and tsc sees one
 * `McpServer` type. Entries of one format share chunks, so `/internal` and the main entry hold
 * one copy of each class; treeshake makes the CommonJS chunks with rollup (modern syntax kept);
 * shims give them import.meta.url.
 */
export function libraryBuild(entry: string[]): Options {
  return {
    entry,
    format: ["esm", "cjs"],
    splitting: true,
    treeshake: true,
    shims: true,
    dts: true,
    clean: true,
    sourcemap: true,
    target: "node20",
  };
}
