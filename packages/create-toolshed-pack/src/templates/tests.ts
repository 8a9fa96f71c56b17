import { sortedNames, type TemplateContext, toolNames } from "./context.js";

// The pack's tests, on @toolshed/testing: a real MCP client in memory, the contract's checks on
// every result, a seeded fuzz run and a snapshot of what the pack publishes.

export function toolsTestTs(ctx: TemplateContext): string {
  const { camel, pascal } = ctx.names;
  const { get, add } = toolNames(ctx);
  return `import { connectPack, expectInvalidArguments, expectToolError, expectToolResult } from "@toolshed/testing";
import { describe, expect, it } from "vitest";
import { ${sortedNames(`Sqlite${pascal}Store`, `${camel}Pack`)} } from "../src/index.js";

const NOW = new Date("2026-01-02T03:04:05.000Z");
const GET = "${get}";
const ADD = "${add}";

async function connect() {
  const store = Sqlite${pascal}Store.open(":memory:", { now: () => NOW });
  return connectPack(${camel}Pack({ store, closeStore: true }));
}

describe("${add} and ${get}", () => {
  it("adds an item and reads it back by its id", async () => {
    await using conn = await connect();
    const added = expectToolResult(await conn.call(ADD, { text: "  first item  " }));
    expect(added).toEqual({ id: 1, text: "first item", created_at: "2026-01-02T03:04:05.000Z" });
    expect(expectToolResult(await conn.call(GET, { id: 1 }))).toEqual(added);
  });

  it("says which ids exist when an id is unknown", async () => {
    await using conn = await connect();
    const empty = expectToolError(await conn.call(GET, { id: 7 }), { code: "not_found", retryable: false });
    expect(empty.text).toBe(\`Error executing tool \${GET}: No item 7. There are no items yet; add one with \${ADD}\`);
    await conn.call(ADD, { text: "one" });
    await conn.call(ADD, { text: "two" });
    expectToolError(await conn.call(GET, { id: 7 }), { code: "not_found", message: "Newest ids: 2, 1" });
  });

  it("refuses arguments outside the schema with a hint the model can act on", async () => {
    await using conn = await connect();
    expect(expectInvalidArguments(await conn.call(GET, { id: 0 }), "id").message).toMatch(/at least 1/);
    expectInvalidArguments(await conn.call(GET, { id: "one" }), "id");
    expectInvalidArguments(await conn.call(ADD, { text: "   " }), "text");
    expectInvalidArguments(await conn.call(ADD, { text: "x".repeat(2001) }), "text");
  });

  it("publishes the read-only tool as read-only", async () => {
    await using conn = await connect();
    const tools = await conn.listTools();
    expect(tools.map((tool) => [tool.name, tool.annotations?.readOnlyHint])).toEqual([
      [GET, true],
      [ADD, false],
    ]);
  });
});
`;
}

export function storeTestTs(ctx: TemplateContext): string {
  const { pascal } = ctx.names;
  return `import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { Sqlite${pascal}Store } from "../src/index.js";

const dir = mkdtempSync(join(tmpdir(), "${ctx.names.unscoped.replace(/[^a-z0-9-]/g, "-")}-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("keeps items in a database file between openings", async () => {
  const file = join(dir, "items.db");
  const first = Sqlite${pascal}Store.open(file);
  const item = await first.addItem("kept");
  await first.close();

  const again = Sqlite${pascal}Store.open(file);
  expect(await again.getItem(item.id)).toEqual(item);
  expect(await again.recentIds(10)).toEqual([item.id]);
  await again.close();
});

it("opens an existing file read-only, and refuses writes through it", async () => {
  const file = join(dir, "readonly.db");
  const writer = Sqlite${pascal}Store.open(file);
  await writer.addItem("one");
  await writer.close();

  const reader = Sqlite${pascal}Store.open(file, { readonly: true });
  expect(await reader.recentIds(10)).toEqual([1]);
  await expect(reader.addItem("two")).rejects.toThrow(/readonly/i);
  await reader.close();
});
`;
}

export function fuzzTestTs(ctx: TemplateContext): string {
  const { camel, pascal } = ctx.names;
  const { get, add } = toolNames(ctx);
  return `import { fuzzPack } from "@toolshed/testing";
import { expect, it } from "vitest";
import { ${sortedNames(`Sqlite${pascal}Store`, `${camel}Pack`)} } from "../src/index.js";

// Calls every tool with arguments made from its published input schema, valid and not, in both
// protocol eras: every answer must keep the contract (no masked internal errors, outputs that
// match their schemas, hints for invalid arguments). A fixed seed makes a failure repeatable.
it("keeps the contract for generated arguments", { timeout: 120_000 }, async () => {
  const store = Sqlite${pascal}Store.open(":memory:");
  // The store is in memory, so the tools that write may be fuzzed too.
  const report = await fuzzPack(${camel}Pack({ store }), { runs: 150, seed: 42, allowWrites: true });
  expect(report.tools.sort()).toEqual(["${add}", "${get}"].sort());
  expect(report.failures).toEqual([]);
  await store.close();
});
`;
}

export function descriptorTestTs(): string {
  return `import { checkPackDescriptor } from "@toolshed/testing";
import { expect, it } from "vitest";
import { toolshedPack } from "../src/index.js";

// What a Toolshed server does with the pack's entry point: opens its store twice on one file
// (migrations run once) and lists its tools over a real MCP client.
it("has an entry point a server can open and mount", async () => {
  const report = await checkPackDescriptor(toolshedPack);
  expect(report.stores).toEqual(["sqlite"]);
  expect(report.tools.length).toBeGreaterThan(0);
});
`;
}

export function contractTestTs(ctx: TemplateContext): string {
  const { camel, pascal } = ctx.names;
  return `import { fileURLToPath } from "node:url";
import { checkPackContract } from "@toolshed/testing";
import { expect, it } from "vitest";
import { ${sortedNames(`Sqlite${pascal}Store`, `${camel}Pack`)} } from "../src/index.js";

// contract.snapshot.json is what the pack publishes (tools, schemas, annotations, resources,
// prompts). It is written on the first run: commit it. A later change fails this test until the
// snapshot is updated (TOOLSHED_UPDATE_SNAPSHOTS=1); a breaking one also needs a major changeset.
it("publishes the contract in contract.snapshot.json", async () => {
  const store = Sqlite${pascal}Store.open(":memory:");
  const snapshot = fileURLToPath(new URL("../contract.snapshot.json", import.meta.url));
  expect(await checkPackContract(${camel}Pack({ store }), snapshot)).toEqual([]);
  await store.close();
});
`;
}
