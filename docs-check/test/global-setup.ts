import { readFileSync } from "node:fs";
import { buildIfStale } from "@toolshed/test-support/build";

// The examples run in child processes (npm start, the stdio example) load the built packages:
// build the ones docs-check depends on when a source is newer.
export default () => {
  const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  return buildIfStale(Object.keys(manifest.dependencies).filter((name) => name.startsWith("@toolshed/")));
};
