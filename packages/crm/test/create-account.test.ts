import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { connectInMemory, createServer } from "@toolshed/server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { crmPack, SqliteCrmStore } from "../src/index.js";
import { type CrmFixture, captureLogger, databaseState, errorMeta, startCrm, tempDir, text } from "./helpers.js";

let crm: CrmFixture;

beforeEach(async () => {
  crm = await startCrm();
});

afterEach(async () => {
  await crm.close();
});

const NEW = {
  name: "Northwind Traders",
  tier: "growth",
  arr: 145_000,
  domain: "northwind.com",
  notes: "Came in through the partner program",
};

describe("crm_create_account", () => {
  it("creates the account and returns it; get and search find it", async () => {
    const result = await crm.call("crm_create_account", NEW);
    expect(result.isError).toBeFalsy();
    const account = result.structuredContent as Record<string, unknown>;
    expect(account).toEqual({
      id: expect.stringMatching(/^acc_[0-9a-f]{12}$/),
      name: "Northwind Traders",
      tier: "growth",
      arr: 145_000,
      domain: "northwind.com",
      notes: "Came in through the partner program",
      archived: false,
      created_at: expect.any(String),
      updated_at: account.created_at,
    });
    expect(result.content).toEqual([{ type: "text", text: JSON.stringify(account, null, 2) }]);
    expect((await crm.call("crm_get_account", { account_id: account.id as string })).structuredContent).toEqual(
      account,
    );
    const found = await crm.call("crm_search_accounts", { query: "partner program" });
    expect(found.structuredContent).toMatchObject({ count: 1, accounts: [{ id: account.id }] });
  });

  it("trims the name and leaves out what was not given", async () => {
    const result = await crm.call("crm_create_account", { name: "  Tiny   Co ", tier: "startup", arr: 0 });
    expect(result.structuredContent).toMatchObject({ name: "Tiny Co", domain: null, notes: null, arr: 0 });
  });

  it("a name taken ignoring case is a conflict naming the existing account, and writes nothing", async () => {
    const before = databaseState(crm.dbPath);
    const result = await crm.call("crm_create_account", { name: "GLOBEX", tier: "startup", arr: 1 });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      "Error executing tool crm_create_account: An account named 'GLOBEX' already exists: acc_1002 (Globex). Names are unique ignoring case; use that account or choose another name",
    );
    expect(errorMeta(result)).toEqual({ kind: "tool", code: "conflict", retryable: false });
    expect(databaseState(crm.dbPath)).toEqual(before);
  });

  it("20 racing calls with one idempotency key make one account, and all answers are equal", async () => {
    const before = databaseState(crm.dbPath);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => crm.call("crm_create_account", { ...NEW, idempotency_key: "req-7f3a" })),
    );
    expect(results.every((r) => !r.isError)).toBe(true);
    const answers = new Set(results.map((r) => JSON.stringify(r.structuredContent)));
    expect(answers.size).toBe(1);
    const after = databaseState(crm.dbPath);
    expect(after.accounts).toBe(before.accounts + 1);
    expect(after.idempotency).toBe(before.idempotency + 1);
    const later = await crm.call("crm_create_account", { ...NEW, idempotency_key: "req-7f3a" });
    expect(later.structuredContent).toEqual(results[0]?.structuredContent);
    expect(databaseState(crm.dbPath)).toEqual(after);
  });

  it("the same key with other arguments is a conflict, and writes nothing", async () => {
    await crm.call("crm_create_account", { ...NEW, idempotency_key: "req-1" });
    const before = databaseState(crm.dbPath);
    const result = await crm.call("crm_create_account", { ...NEW, arr: 1, idempotency_key: "req-1" });
    expect(text(result)).toBe(
      "Error executing tool crm_create_account: idempotency_key 'req-1' was already used with different arguments; use a new key for a new request, or repeat the original arguments",
    );
    expect(errorMeta(result)).toEqual({ kind: "tool", code: "conflict", retryable: false });
    expect(databaseState(crm.dbPath)).toEqual(before);
  });

  it("without a key, a repeated create is a name conflict rather than a second account", async () => {
    const first = await crm.call("crm_create_account", NEW);
    const second = await crm.call("crm_create_account", NEW);
    expect(errorMeta(second)?.code).toBe("conflict");
    expect(text(second)).toContain(
      `already exists: ${(first.structuredContent as { id: string }).id} (Northwind Traders)`,
    );
  });

  it("C6: arguments out of bounds are hints", async () => {
    const result = await crm.call("crm_create_account", {
      name: "   ",
      tier: "mega",
      arr: -5,
      idempotency_key: "k".repeat(129),
    });
    expect(text(result)).toBe(
      [
        "Invalid arguments for tool crm_create_account:",
        "name: must not be empty",
        'tier: must be one of "startup", "growth", "enterprise" (got "mega")',
        "arr: must be at least 0 (got -5)",
        "idempotency_key: must be at most 128 characters (got 129)",
      ].join("\n"),
    );
  });
});

describe("idempotency across processes", () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => {
    tmp = tempDir();
  });
  afterEach(() => tmp.remove());

  it("two servers with their own stores on one file make one account for racing calls with one key", async () => {
    const path = join(tmp.dir, "shared.db");
    const servers = [SqliteCrmStore.open(path), SqliteCrmStore.open(path)].map((store) =>
      createServer({
        name: "crm",
        version: "1",
        packs: [crmPack({ store, closeStore: true })],
        logger: captureLogger().logger,
      }),
    );
    const clients = await Promise.all(servers.map((s) => connectInMemory(s)));
    const results = (await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        clients[i % 2]?.callTool({ name: "crm_create_account", arguments: { ...NEW, idempotency_key: "shared" } }),
      ),
    )) as CallToolResult[];
    expect(new Set(results.map((r) => JSON.stringify(r.structuredContent))).size).toBe(1);
    expect(results[0]?.isError).toBeFalsy();
    for (const client of clients) await client.close();
    for (const server of servers) await server.close();
    const state = databaseState(path);
    expect(state.accounts).toBe(1);
    expect(state.idempotency).toBe(1);
  });
});
