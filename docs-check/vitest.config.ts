import { fileURLToPath } from "node:url";
import { defineProject, mergeConfig, type Plugin } from "vitest/config";
import { sharedProject } from "../vitest.shared.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const docs = `${root}docs/`;

// Bare imports in docs/examples/ (outside every package) resolve as if imported from a workspace
// package that depends on them: docs-check itself once installed, else the packages below.
const importers = [
  "docs-check/vitest.config.ts",
  "apps/http-server/src/index.ts",
  "packages/packs/src/index.ts",
  "packages/server/src/index.ts",
].map((path) => `${root}${path}`);

function resolveDocsImports(): Plugin {
  return {
    name: "toolshed-docs-imports",
    enforce: "pre",
    async resolveId(id, importer, options) {
      if (!importer?.startsWith(docs) || /^[./\0]|^node:/.test(id)) return null;
      for (const from of importers) {
        const resolved = await this.resolve(id, from, { ...options, skipSelf: true });
        if (resolved) return resolved;
      }
      return null;
    },
  };
}

export default mergeConfig(
  sharedProject,
  defineProject({
    plugins: [resolveDocsImports()],
    test: {
      name: "docs-check",
      include: ["test/**/*.test.ts"],
      // Some examples run the built packages in child processes; this builds them when a source is newer.
      globalSetup: ["./test/global-setup.ts"],
      // The examples start servers and compile every sample: room for a loaded 2-core machine.
      testTimeout: 120_000,
      hookTimeout: 60_000,
    },
  }),
);
