// The pack on a plain SDK McpServer through attachPack, with a real Client over an in-memory pair.

import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { attachPack } from "@toolshed/server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { crmPack, SqliteCrmStore, seedDemo, withFaults } from "../src/index.js";
import { captureLogger, errorMeta, tempDir, text } from "./helpers.js";

let tmp: ReturnType<typeof tempDir>;
let store: SqliteCrmStore;
let mcpServer: McpServer;
let client: Client;
let logs: ReturnType<typeof captureLogger>;
let faulty: ReturnType<typeof withFaults>;

beforeEach(async () => {
  tmp = tempDir();
  store = SqliteCrmStore.open(join(tmp.dir, "crm.db"));
  await seedDemo(store);
  faulty = withFaults(store);
  logs = captureLogger();
  mcpServer = new McpServer({ name: "plain", version: "1.0.0" });
  attachPack(mcpServer, crmPack({ store: faulty, closeStore: true, timeoutMs: 100 }), { logger: logs.logger });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await mcpServer.connect(serverTransport);
  client = new Client({ name: "attach-test", version: "0.0.0" });
  await client.connect(clientTransport);
});

afterEach(async () => {
  await client.close();
  await mcpServer.close();
  await store.close();
  tmp.remove();
});

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

describe("attachPack on a plain McpServer", () => {
  it("lists the four tools with their annotations", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      "crm_bulk_update_tier",
      "crm_create_account",
      "crm_get_account",
      "crm_search_accounts",
    ]);
    expect(tools.find((t) => t.name === "crm_get_account")?.annotations).toEqual({
      title: "Get a CRM account",
      readOnlyHint: true,
      openWorldHint: false,
    });
  });

  it("crm_search_accounts answers with structured content", async () => {
    const result = await call("crm_search_accounts", { query: "hooli" });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      count: 1,
      accounts: [{ id: "acc_1005", name: "Hooli" }],
      next_cursor: null,
    });
  });

  it("crm_get_account answers, and a missing id is a not_found tool error with the closest accounts", async () => {
    expect((await call("crm_get_account", { account_id: "acc_1005" })).structuredContent).toMatchObject({
      name: "Hooli",
    });
    const missing = await call("crm_get_account", { account_id: "acc_1O05" });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toMatch(
      /^Error executing tool crm_get_account: No account 'acc_1O05'\. Closest accounts: acc_1005 \(Hooli\)/,
    );
    expect(errorMeta(missing)).toEqual({ kind: "tool", code: "not_found", retryable: false });
  });

  it("crm_get_account times out as a retryable error when the store hangs", async () => {
    faulty.faults = { hang: true };
    const result = await call("crm_get_account", { account_id: "acc_1005" });
    expect(text(result)).toBe(
      "Error executing tool crm_get_account: the CRM store did not answer within 100 ms; temporary failure, safe to retry",
    );
    expect(faulty.abortedCalls).toBe(1);
  });

  it("crm_get_account masks an unknown store error", async () => {
    faulty.faults = { throwError: new Error("token=sk-live-123") };
    const result = await call("crm_get_account", { account_id: "acc_1005" });
    expect(text(result)).toMatch(/^Error executing tool crm_get_account \(ref [0-9a-f]{8}\)$/);
    expect(JSON.stringify(result)).not.toContain("sk-live-123");
  });

  it("crm_create_account creates once per idempotency key", async () => {
    const args = { name: "Attached Co", tier: "startup", arr: 10, idempotency_key: "attach-1" };
    const [a, b] = await Promise.all([call("crm_create_account", args), call("crm_create_account", args)]);
    expect(a?.isError).toBeFalsy();
    expect(b?.structuredContent).toEqual(a?.structuredContent);
    const conflict = await call("crm_create_account", { name: "attached co", tier: "growth", arr: 1 });
    expect(errorMeta(conflict)?.code).toBe("conflict");
  });

  it("crm_bulk_update_tier reports partial success (C11)", async () => {
    const result = await call("crm_bulk_update_tier", { account_ids: ["acc_1006", "acc_1036"], new_tier: "growth" });
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toEqual({
      succeeded_count: 1,
      failed_count: 1,
      succeeded: [{ id: "acc_1006", name: "Pied Piper", previous_tier: "startup", tier: "growth" }],
      failed: [
        {
          id: "acc_1036",
          reason: "archived",
          message: "Account 'acc_1036' (Kramerica) is archived; archived accounts keep their tier",
          retryable: false,
        },
      ],
    });
  });

  it("the resource and the prompt work too", async () => {
    const read = await client.readResource({ uri: "crm://accounts/acc_1005" });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ id: "acc_1005", name: "Hooli" });
    const prompt = await client.getPrompt({ name: "account_brief", arguments: { account_id: "acc_1005" } });
    expect((prompt.messages[0]?.content as { text?: string } | undefined)?.text).toMatch(
      /^Write a short brief on the CRM account Hooli \(acc_1005\)/,
    );
    const completion = await client.complete({
      ref: { type: "ref/prompt", name: "account_brief" },
      argument: { name: "account_id", value: "acc_100" },
    });
    expect(completion.completion.values).toEqual(Array.from({ length: 9 }, (_, i) => `acc_100${i + 1}`));
  });
});
