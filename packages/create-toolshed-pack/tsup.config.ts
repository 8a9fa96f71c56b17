import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/cli.ts", "src/index.ts"],
  format: ["esm"],
  dts: { entry: "src/index.ts" },
  clean: true,
  sourcemap: true,
  target: "node20",
  // npm runs dist/cli.js as the create-toolshed-pack bin; in index.js the line is ignored.
  banner: { js: "#!/usr/bin/env node" },
});
