// null for an optional argument over HTTP in both eras: real toolshed-http processes (stateless and
// with sessions) serving the real CRM pack. null means "left out" (the default applies); a required
// argument sent as null is a hint that says it is required.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type HttpProcess, killChildren, post, removeTempDirs, resultText, startServer } from "./helpers.js";

const V = "2026-07-28";
const TOOL = "crm_search_accounts";
const REQUIRED_NULL = `Invalid arguments for tool ${TOOL}:\nquery: is required and must be a string (got null)`;

type Accounts = { accounts: Array<{ id: string; tier: string }> };

/** A 2026-07-28 tools/call with its _meta envelope and the headers a client sends for it. */
function modernCall(url: string, id: number, args: Record<string, unknown>) {
  const body = {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: {
      _meta: { "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": {} },
      name: TOOL,
      arguments: args,
    },
  };
  return post(url, body, { "MCP-Protocol-Version": V, "Mcp-Method": "tools/call", "Mcp-Name": TOOL });
}

let stateless: HttpProcess;
let sessions: HttpProcess;
beforeAll(async () => {
  [stateless, sessions] = await Promise.all([startServer(["--demo"]), startServer(["--demo", "--sessions"])]);
});
afterAll(async () => {
  await killChildren();
  removeTempDirs();
});

describe("null for an optional argument over HTTP", () => {
  it.each([
    ["stateless", () => stateless],
    ["with sessions", () => sessions],
  ])(
    "2025 (%s): crm_search_accounts with tier: null answers as with tier left out; query: null says it is required",
    async (_mode, started) => {
      const { client } = await connect(started().url);
      const left = await client.callTool({ name: TOOL, arguments: { query: "company" } });
      const nulls = await client.callTool({
        name: TOOL,
        arguments: { query: "company", tier: null, min_arr: null, max_arr: null, cursor: null },
      });
      expect(nulls.isError).toBeUndefined();
      expect(nulls.structuredContent).toEqual(left.structuredContent);
      // Not filtered by tier at all: accounts of several tiers.
      expect(new Set((nulls.structuredContent as Accounts).accounts.map((a) => a.tier)).size).toBeGreaterThan(1);
      const required = await client.callTool({ name: TOOL, arguments: { query: null, tier: null } });
      expect(required.isError).toBe(true);
      expect(resultText(required)).toBe(REQUIRED_NULL);
      expect(required._meta?.["toolshed.dev/error"]).toMatchObject({ code: "invalid_arguments", retryable: false });
      await client.close();
    },
  );

  it("2026-07-28: the same calls with the _meta envelope and the Mcp-Method and Mcp-Name headers", async () => {
    for (const started of [stateless, sessions]) {
      const left = await modernCall(started.url, 1, { query: "company" });
      const nulls = await modernCall(started.url, 2, { query: "company", tier: null, max_arr: null });
      expect(nulls.status).toBe(200);
      const result = (nulls.json as { result: Record<string, unknown> }).result;
      expect(result).toMatchObject({ resultType: "complete" });
      expect(result.isError).toBeUndefined();
      expect(result.structuredContent).toEqual(
        (left.json as { result: Record<string, unknown> }).result.structuredContent,
      );
      expect(new Set((result.structuredContent as Accounts).accounts.map((a) => a.tier)).size).toBeGreaterThan(1);
      const required = await modernCall(started.url, 3, { query: null, tier: null });
      expect(required.status).toBe(200);
      expect(required.json).toMatchObject({
        id: 3,
        result: { resultType: "complete", isError: true, content: [{ type: "text", text: REQUIRED_NULL }] },
      });
    }
  });
});
