import { defineConfig } from "tsup";
import { libraryBuild } from "../../tsup.library.js";

export default defineConfig([
  libraryBuild(["src/index.ts"]),
  {
    // The bin: no types, a shebang so npm can link it.
    entry: ["src/cli.ts"],
    format: ["esm"],
    sourcemap: true,
    target: "node20",
    banner: { js: "#!/usr/bin/env node" },
  },
]);
