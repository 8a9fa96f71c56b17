// Node 20 preload for @modelcontextprotocol/conformance, which imports `globSync` from "fs"
// (Node 22+). Setting fs.globSync at run time is too late for an ESM named import, so a resolve
// hook hands the suite's own `fs` imports a module that adds it: `node --import ./preload.mjs`.
import { register } from "node:module";

register("./hooks.mjs", import.meta.url);
