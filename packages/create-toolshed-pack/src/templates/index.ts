import type { TemplateContext } from "./context.js";
import { changeset, gitignore, packageJson, tsconfigJson, tsupConfig, vitestConfig } from "./project.js";
import { readme } from "./readme.js";
import {
  addItemTs,
  getItemTs,
  indexTs,
  itemResourceTs,
  migrationsTs,
  notFoundTs,
  packTs,
  reviewPromptTs,
  schemasTs,
  sqliteStoreTs,
  stdioExampleTs,
  storeTs,
  toolshedPackTs,
} from "./source.js";
import { contractTestTs, descriptorTestTs, fuzzTestTs, storeTestTs, toolsTestTs } from "./tests.js";

export type { TemplateContext } from "./context.js";

/** Every file of a new pack, by path relative to the pack folder ("/"-separated), in writing order. */
export function packFiles(ctx: TemplateContext): Map<string, string> {
  const files = new Map<string, string>([
    ["package.json", packageJson(ctx)],
    ["README.md", readme(ctx)],
    ["tsconfig.json", tsconfigJson(ctx)],
    ["tsup.config.ts", tsupConfig()],
    ["vitest.config.ts", vitestConfig(ctx)],
    ["src/index.ts", indexTs(ctx)],
    ["src/pack.ts", packTs(ctx)],
    ["src/toolshed-pack.ts", toolshedPackTs(ctx)],
    ["src/store.ts", storeTs(ctx)],
    ["src/schemas.ts", schemasTs()],
    ["src/not-found.ts", notFoundTs(ctx)],
    ["src/tools/get_item.ts", getItemTs(ctx)],
    ["src/tools/add_item.ts", addItemTs(ctx)],
    ["src/resources/item.ts", itemResourceTs(ctx)],
    ["src/prompts/review_item.ts", reviewPromptTs(ctx)],
    ["src/sqlite/migrations.ts", migrationsTs(ctx)],
    ["src/sqlite/store.ts", sqliteStoreTs(ctx)],
    ["examples/stdio.ts", stdioExampleTs(ctx)],
    ["test/tools.test.ts", toolsTestTs(ctx)],
    ["test/store.test.ts", storeTestTs(ctx)],
    ["test/fuzz.test.ts", fuzzTestTs(ctx)],
    ["test/contract.test.ts", contractTestTs(ctx)],
    ["test/descriptor.test.ts", descriptorTestTs()],
  ]);
  if (ctx.mode === "standalone") files.set(".gitignore", gitignore());
  return files;
}

export { changeset };
