import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { connectInMemory, createServer } from "@toolshed/server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { crmPack, SqliteCrmStore } from "../src/index.js";
import { type CrmFixture, captureLogger, startCrm } from "./helpers.js";

let crm: CrmFixture;

beforeEach(async () => {
  crm = await startCrm({ seed: false });
});

afterEach(async () => {
  await crm.close();
});

type Schema = { description?: string; properties?: Record<string, Schema>; items?: Schema };

function undescribed(schema: Schema, at = ""): string[] {
  return Object.entries(schema.properties ?? {}).flatMap(([key, sub]) => {
    const path = at ? `${at}.${key}` : key;
    return [
      ...(sub.description ? [] : [path]),
      ...undescribed(sub, path),
      ...(sub.items ? undescribed(sub.items, `${path}[]`) : []),
    ];
  });
}

describe("definitions", () => {
  it("C13/C14: four tools, every input property described, annotations that tell the truth", async () => {
    const { tools } = await crm.client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(Object.keys(byName).sort()).toEqual([
      "crm_bulk_update_tier",
      "crm_create_account",
      "crm_get_account",
      "crm_search_accounts",
    ]);
    for (const tool of tools) {
      expect(tool.description?.length, tool.name).toBeGreaterThan(40);
      expect(undescribed(tool.inputSchema as Schema), tool.name).toEqual([]);
      expect(tool.outputSchema?.type, tool.name).toBe("object");
    }
    expect(byName.crm_search_accounts?.annotations).toEqual({
      title: "Search CRM accounts",
      readOnlyHint: true,
      openWorldHint: false,
    });
    expect(byName.crm_get_account?.annotations).toEqual({
      title: "Get a CRM account",
      readOnlyHint: true,
      openWorldHint: false,
    });
    expect(byName.crm_create_account?.annotations).toEqual({
      title: "Create a CRM account",
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
    });
    expect(byName.crm_bulk_update_tier?.annotations).toEqual({
      title: "Change the tier of several CRM accounts",
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    });
  });

  it("C5: crm_search_accounts publishes the seed lesson's inputs plus limit and cursor, portable", async () => {
    const { tools } = await crm.client.listTools();
    const search = tools.find((t) => t.name === "crm_search_accounts");
    expect(search?.inputSchema).toEqual({
      type: "object",
      properties: {
        query: {
          type: "string",
          minLength: 2,
          maxLength: 200,
          description: "Name or keyword to look for in account names, domains and notes, e.g. 'acme' or 'logistics'",
        },
        tier: { type: "string", enum: ["startup", "growth", "enterprise"], description: "Only accounts of this tier" },
        min_arr: {
          type: "number",
          minimum: 0,
          maximum: 1_000_000_000_000,
          default: 0,
          description: "Lowest annual recurring revenue in US dollars",
        },
        max_arr: {
          type: "number",
          minimum: 0,
          maximum: 1_000_000_000_000,
          description: "Highest annual recurring revenue in US dollars; at least min_arr",
        },
        limit: {
          type: "integer",
          minimum: 1,
          maximum: 100,
          default: 20,
          description: "Most accounts to return on this page",
        },
        cursor: {
          type: "string",
          minLength: 1,
          maxLength: 500,
          description: "next_cursor from the previous page of the same search; omit for the first page",
        },
      },
      required: ["query"],
      additionalProperties: false,
    });
    expect(JSON.stringify(tools)).not.toContain("$schema");
  });

  it("C14: a read-only server offers only the two read tools", async () => {
    const server = createServer({
      name: "ro",
      version: "1",
      readOnly: true,
      packs: [crmPack({ store: crm.store, closeStore: false })],
      logger: captureLogger().logger,
    });
    const client = await connectInMemory(server);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([
      "crm_get_account",
      "crm_search_accounts",
    ]);
    await client.close();
    await server.close();
  });
});

describe("crmPack options", () => {
  it("rejects a timeout that is not a positive number of milliseconds", () => {
    const store = SqliteCrmStore.open(":memory:");
    expect(() => crmPack({ store, timeoutMs: 0 })).toThrow(
      "crmPack: timeoutMs must be a positive number of milliseconds (got 0)",
    );
    expect(() => crmPack({ store, timeoutMs: Number.NaN })).toThrow(/got NaN/);
  });

  it("closes the store with the server only when told to (closeStore: true)", async () => {
    const owned = SqliteCrmStore.open(":memory:");
    const kept = SqliteCrmStore.open(":memory:");
    for (const pack of [crmPack({ store: owned, closeStore: true }), crmPack({ store: kept })]) {
      const server = createServer({ name: "c", version: "1", packs: [pack], logger: captureLogger().logger });
      await server.close();
    }
    await expect(owned.getAccount("acc_1")).rejects.toThrow("The database connection is not open");
    expect(await kept.getAccount("acc_1")).toBeUndefined();
    await kept.close();
  });
});

describe("house rules for the pack's source", () => {
  const srcDir = fileURLToPath(new URL("../src/", import.meta.url));
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory()
        ? files(path)
        : path.endsWith(".ts") && !path.endsWith(".test.ts")
          ? [path]
          : [];
    });

  it("never imports the server runtime or an app, and never writes to stdout", () => {
    const sources = files(srcDir);
    expect(sources.length).toBeGreaterThan(10);
    for (const file of sources) {
      const source = readFileSync(file, "utf8");
      expect(source, file).not.toMatch(/from "@toolshed\/server"|from "@toolshed\/(stdio|http)-server"/);
      expect(source, file).not.toMatch(/console\.log|process\.stdout/);
      expect(source, file).not.toMatch(/export \*/);
    }
  });

  it("keeps one tool per file, named after the tool", () => {
    const tools = readdirSync(join(srcDir, "tools")).filter((f) => !f.endsWith(".test.ts"));
    expect(tools.sort()).toEqual([
      "crm_bulk_update_tier.ts",
      "crm_create_account.ts",
      "crm_get_account.ts",
      "crm_search_accounts.ts",
    ]);
    for (const file of tools) {
      expect(readFileSync(join(srcDir, "tools", file), "utf8")).toContain(`"${file.replace(".ts", "")}"`);
    }
  });
});
