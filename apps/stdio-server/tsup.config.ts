import { defineConfig } from "tsup";
import { libraryBuild } from "../../tsup.library.js";

export default defineConfig([
  libraryBuild(["src/index.ts"]),
  {
    // The bin is one bundle: a desktop client spawns it for every session, and resolving and
    // compiling some 300 separate modules was most of its start-up time. Native and optional
    // drivers stay external; PostgreSQL code sits in lazy chunks loaded only with --database-url.
    // The OpenTelemetry SDK stays external too: loaded from node_modules only when OTEL_* ask for it.
    // The shebang line of src/cli.ts is kept by esbuild.
    entry: ["src/cli.ts"],
    format: ["esm"],
    target: "node20",
    platform: "node",
    noExternal: [/^(?!(better-sqlite3|pg|pg-native|@opentelemetry)(\/|$))/],
    splitting: true,
    // Bundled CommonJS modules (ajv, pino) call require() for Node built-ins.
    banner: {
      js: 'import { createRequire as __toolshedRequire } from "node:module";\nconst require = __toolshedRequire(import.meta.url);',
    },
  },
]);
