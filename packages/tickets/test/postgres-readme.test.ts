import { readFileSync } from "node:fs";
import { connectInMemory, createServer } from "@toolshed/server";
import { createTestSchema, pgReachable, TEST_DATABASE_URL } from "@toolshed/storage/postgres";
import { ticketsPack } from "@toolshed/tickets";
import { PostgresTicketsStore } from "@toolshed/tickets/postgres";
import { expect, it } from "vitest";
import { call } from "./helpers.js";

const reachable = await pgReachable();
if (!reachable) process.stderr.write(`PostgreSQL README test SKIPPED: ${TEST_DATABASE_URL} is not reachable\n`);

const IMPORTS = `import { connectInMemory, createServer } from "@toolshed/server";
import { ticketsPack } from "@toolshed/tickets";
import { PostgresTicketsStore } from "@toolshed/tickets/postgres";
`;

it("the README's PostgreSQL sample is this test's code", () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const source = readFileSync(new URL(import.meta.url), "utf8");
  const sample = readme.split("## PostgreSQL")[1]?.match(/```ts\n([\s\S]*?)```/)?.[1] ?? "";
  const [imports = "", body = ""] = sample.split(/\n\/\/ url: .*\n/);
  const squash = (text: string) => text.replace(/\s+/g, " ").trim();
  expect(squash(imports)).toBe(squash(IMPORTS));
  expect(source).toContain(IMPORTS);
  expect(body).toContain("PostgresTicketsStore.open(url");
  expect(squash(source)).toContain(squash(body));
});

// Imports @toolshed/tickets through its built dist: run `npx tsup` first.
it.skipIf(!reachable)("the README's PostgreSQL sample serves the tools on a fresh schema", async () => {
  const db = await createTestSchema();
  const { url, schema } = db;
  try {
    const store = await PostgresTicketsStore.open(url, { schema, statementTimeoutMs: 5000 });
    const server = createServer({
      name: "support",
      version: "1.0.0",
      packs: [ticketsPack({ store, closeStore: true })],
    });
    const client = await connectInMemory(server);
    const created = await call(client, "create_ticket", { title: "Printer on fire", body: "Smoke from tray 2" });
    expect(created.structuredContent).toMatchObject({ id: "T-1001" });
    const found = await call(client, "search_tickets", { query: "smoke" });
    expect(found.structuredContent).toMatchObject({ result: [{ id: "T-1001", snippet: "**Smoke** from tray 2" }] });
    await client.close();
    await server.close();
  } finally {
    await db.drop();
  }
});
