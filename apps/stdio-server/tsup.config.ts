import { defineConfig } from "tsup";

export default defineConfig({
  // src/cli.ts is the bin; its `#!/usr/bin/env node` line is kept by esbuild.
  entry: ["src/index.ts", "src/cli.ts"],
  format: ["esm"],
  dts: { entry: "src/index.ts" },
  clean: true,
  sourcemap: true,
  target: "node20",
});
