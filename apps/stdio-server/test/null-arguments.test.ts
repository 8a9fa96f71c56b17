import { afterEach, describe, expect, it } from "vitest";
import { cleanup, connectClient, spawnCli, tempDir } from "./helpers.js";

afterEach(cleanup);

const demoArgs = () => ["--db", tempDir().file("toolshed.db"), "--demo"];
const V = "2026-07-28";
const modern = (id: number, params: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: {
    _meta: { "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": {} },
    ...params,
  },
});

type Accounts = { accounts: Array<{ id: string; tier: string }> };
const REQUIRED_NULL =
  "Invalid arguments for tool crm_search_accounts:\nquery: is required and must be a string (got null)";

describe("null for an optional argument over stdio", () => {
  it("2025: crm_search_accounts with tier: null answers as with tier left out; query: null says it is required", async () => {
    const { client } = await connectClient(demoArgs());
    const left = await client.callTool({ name: "crm_search_accounts", arguments: { query: "company" } });
    const nulls = await client.callTool({
      name: "crm_search_accounts",
      arguments: { query: "company", tier: null, min_arr: null, max_arr: null, cursor: null },
    });
    expect(nulls.isError).toBeUndefined();
    expect(nulls.structuredContent).toEqual(left.structuredContent);
    // Not filtered by tier at all: accounts of several tiers.
    const tiers = new Set((nulls.structuredContent as Accounts).accounts.map((a) => a.tier));
    expect(tiers.size).toBeGreaterThan(1);
    const required = await client.callTool({ name: "crm_search_accounts", arguments: { query: null, tier: null } });
    expect(required.isError).toBe(true);
    expect(required.content).toEqual([{ type: "text", text: REQUIRED_NULL }]);
    expect(required._meta?.["toolshed.dev/error"]).toMatchObject({ code: "invalid_arguments", retryable: false });
  });

  it("2026-07-28: the same calls with the _meta envelope on raw lines", async () => {
    const cli = spawnCli(demoArgs());
    cli.send(modern(1, { name: "crm_search_accounts", arguments: { query: "company" } }));
    cli.send(modern(2, { name: "crm_search_accounts", arguments: { query: "company", tier: null } }));
    cli.send(modern(3, { name: "crm_search_accounts", arguments: { query: null, tier: null } }));
    await cli.waitForLines(3);
    const byId = new Map(cli.messages().map((m) => [m.id, (m.result ?? {}) as Record<string, unknown>]));
    const left = byId.get(1) ?? {};
    const nulls = byId.get(2) ?? {};
    expect(nulls).toMatchObject({ resultType: "complete" });
    expect(nulls.isError).toBeUndefined();
    expect(new Set((nulls.structuredContent as Accounts).accounts.map((a) => a.tier)).size).toBeGreaterThan(1);
    expect(nulls.structuredContent).toEqual(left.structuredContent);
    expect(byId.get(3)).toMatchObject({
      resultType: "complete",
      isError: true,
      content: [{ type: "text", text: REQUIRED_NULL }],
    });
  });
});
