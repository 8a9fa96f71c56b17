import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createTestSchema, pgReachable, TEST_DATABASE_URL } from "@toolshed/storage/postgres";
import { describe, expect, it } from "vitest";

const reachable = await pgReachable();
if (!reachable) process.stderr.write(`PostgreSQL README example SKIPPED: ${TEST_DATABASE_URL} is not reachable\n`);

/** The first ts block after `## PostgreSQL` in the README. */
function postgresExample(): string {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const section = readme.slice(readme.indexOf("## PostgreSQL"));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  if (!match?.[1]) throw new Error("README has no ts example under ## PostgreSQL");
  return match[1];
}

// Needs the built package (npx tsup): the example imports @toolshed/notes by name.
describe.skipIf(!reachable)("README PostgreSQL example", () => {
  it("runs against a fresh schema and answers as its comments say", async () => {
    const db = await createTestSchema();
    const dir = mkdtempSync(join(tmpdir(), "toolshed-notes-pg-readme-"));
    const dist = (path: string) => pathToFileURL(fileURLToPath(new URL(`../dist/${path}`, import.meta.url))).href;
    try {
      const example = postgresExample();
      expect(example).toContain('schema: "notes"');
      // Same code, run from a temp folder: package names point at the built files, the schema is this run's.
      const code = example
        .replace('schema: "notes"', `schema: "${db.schema}"`)
        .replace('from "@toolshed/notes/postgres"', `from "${dist("postgres/index.js")}"`)
        .replace('from "@toolshed/notes"', `from "${dist("index.js")}"`)
        .replace('from "@toolshed/server"', `from "${import.meta.resolve("@toolshed/server")}"`);
      const file = join(dir, "example.ts");
      writeFileSync(file, code);
      process.env.DATABASE_URL = db.url;
      const { hits } = await import(/* @vite-ignore */ pathToFileURL(file).href);
      const result = (hits.structuredContent as { result: Array<Record<string, string>> }).result;
      expect(result.map((h) => h.title)).toEqual(["groceries", "pancake recipe"]);
      expect(result[0]).toEqual({ title: "groceries", snippet: "**milk**, eggs", updated_at: expect.any(String) });
    } finally {
      delete process.env.DATABASE_URL;
      rmSync(dir, { recursive: true, force: true });
      await db.drop();
    }
  });
});
