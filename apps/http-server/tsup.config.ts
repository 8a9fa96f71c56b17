import { defineConfig } from "tsup";
import { libraryBuild } from "../../tsup.library.js";

export default defineConfig([
  libraryBuild(["src/index.ts"]),
  {
    // The bin: no types, and a shebang so `npx @toolshed/http-server` can run it.
    entry: ["src/cli.ts"],
    format: ["esm"],
    sourcemap: true,
    target: "node20",
    banner: { js: "#!/usr/bin/env node" },
  },
]);
