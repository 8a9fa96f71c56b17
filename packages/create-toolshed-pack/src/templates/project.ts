import { BETTER_SQLITE3_VERSION, DEV_VERSIONS, hasNodeSqlite, NODE_ENGINES, PEER_RANGES } from "../versions.js";
import type { TemplateContext } from "./context.js";

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** package.json: @toolshed/* at this release (standalone) or from the workspace, the rest from the catalog. */
export function packageJson(ctx: TemplateContext): string {
  const workspace = ctx.mode === "workspace";
  const toolshed = workspace ? "workspace:^" : `^${ctx.toolshedVersion}`;
  const dev = (name: keyof typeof DEV_VERSIONS) => (workspace ? "catalog:" : DEV_VERSIONS[name]);
  // In the monorepo, tests resolve the package to its sources; the published manifest leaves that out.
  const built = {
    ".": { types: "./dist/index.d.ts", default: "./dist/index.js" },
    "./package.json": "./package.json",
  };
  return json({
    name: ctx.names.packageName,
    // In the monorepo it is released with Toolshed; on its own it starts at 0.1.0.
    version: workspace ? ctx.toolshedVersion : "0.1.0",
    description: ctx.description,
    license: "MIT",
    type: "module",
    exports: ctx.sourceCondition
      ? { ".": { "@toolshed/source": "./src/index.ts", ...built["."] }, "./package.json": "./package.json" }
      : built,
    main: "./dist/index.js",
    types: "./dist/index.d.ts",
    files: ["dist"],
    sideEffects: false,
    engines: { node: NODE_ENGINES },
    ...(workspace
      ? { publishConfig: ctx.sourceCondition ? { access: "public", exports: built } : { access: "public" } }
      : {}),
    keywords: ["mcp", "model-context-protocol", "toolshed", "tools"],
    scripts: {
      build: "tsup",
      test: "vitest run",
      typecheck: "tsc --noEmit",
      ...(workspace ? { lint: "biome check src test examples" } : {}),
    },
    dependencies: {
      "@toolshed/errors": toolshed,
      "@toolshed/schema": toolshed,
      "@toolshed/storage": toolshed,
    },
    peerDependencies: PEER_RANGES,
    devDependencies: {
      "@modelcontextprotocol/sdk": dev("@modelcontextprotocol/sdk"),
      "@toolshed/server": toolshed,
      "@toolshed/testing": toolshed,
      "@types/node": dev("@types/node"),
      tsup: dev("tsup"),
      typescript: dev("typescript"),
      vitest: dev("vitest"),
      zod: dev("zod"),
      // Node before 22.16 has no node:sqlite: the store's tests need the native driver there.
      ...(!workspace && !hasNodeSqlite() ? { "better-sqlite3": BETTER_SQLITE3_VERSION } : {}),
    },
  });
}

export function tsconfigJson(ctx: TemplateContext): string {
  if (ctx.mode === "workspace") {
    return json({ extends: `${ctx.rootFromPack}/tsconfig.base.json`, include: ["src", "test", "examples"] });
  }
  return json({
    compilerOptions: {
      target: "ES2022",
      lib: ["ES2023"],
      module: "NodeNext",
      moduleResolution: "NodeNext",
      strict: true,
      noUncheckedIndexedAccess: true,
      esModuleInterop: true,
      skipLibCheck: true,
      declaration: true,
      isolatedModules: true,
      verbatimModuleSyntax: true,
      resolveJsonModule: true,
      types: ["node"],
    },
    include: ["src", "test", "examples"],
  });
}

export function tsupConfig(): string {
  return `import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "node20",
});
`;
}

export function vitestConfig(ctx: TemplateContext): string {
  if (ctx.mode === "workspace" && ctx.sourceCondition) {
    return `import { defineProject, mergeConfig } from "vitest/config";
import { sharedProject } from "${ctx.rootFromPack}/vitest.shared.js";

export default mergeConfig(
  sharedProject,
  defineProject({
    test: {
      name: ${JSON.stringify(ctx.names.unscoped)},
      include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    },
  }),
);
`;
  }
  if (ctx.mode === "workspace") {
    return `import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: ${JSON.stringify(ctx.names.unscoped)},
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
  },
});
`;
  }
  return `import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
  },
});
`;
}

export function gitignore(): string {
  return ["node_modules", "dist", "*.db", "*.db-shm", "*.db-wal", ""].join("\n");
}

/** The changeset that announces a new package of the monorepo. */
export function changeset(ctx: TemplateContext): string {
  return `---
${JSON.stringify(ctx.names.packageName)}: minor
---

New pack ${ctx.names.packageName}: ${ctx.description}
`;
}
