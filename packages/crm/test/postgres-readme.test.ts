import { randomBytes } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createTestSchema, pgReachable, TEST_DATABASE_URL } from "@toolshed/storage/postgres";
import { expect, it } from "vitest";

const reachable = await pgReachable();
if (!reachable) process.stderr.write(`PostgreSQL README test SKIPPED: ${TEST_DATABASE_URL} is not reachable\n`);

it.skipIf(!reachable)("the README's PostgreSQL example runs and does what its comments say", async () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const section = readme.slice(readme.indexOf("## PostgreSQL"));
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  expect(code).toContain('PostgresCrmStore.open("postgres://toolshed@127.0.0.1:5432/toolshed"');
  const db = await createTestSchema();
  // The example as printed, pointed at a fresh schema of the test database; no types, so it runs as JS.
  const file = new URL(`../.readme-postgres-${randomBytes(4).toString("hex")}.mjs`, import.meta.url);
  writeFileSync(
    file,
    (code as string)
      .replace("postgres://toolshed@127.0.0.1:5432/toolshed", db.url)
      .replace('schema: "crm"', `schema: "${db.schema}"`),
  );
  try {
    const { found } = (await import(/* @vite-ignore */ file.href)) as { found: CallToolResult };
    const page = found.structuredContent as { accounts: Array<{ id: string; name: string; snippet: string }> };
    expect(page.accounts[0]).toMatchObject({ id: "acc_1007", name: "Stark Logistics", snippet: "Stark [Logistics]" });
    expect((await db.pool().query("SELECT count(*)::int AS n FROM crm_accounts")).rows[0].n).toBe(36);
  } finally {
    rmSync(file, { force: true });
    await db.drop();
  }
});
