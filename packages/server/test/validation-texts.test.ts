// One kind, one text (C6): every validation-class error reads `Invalid arguments for tool <name>:`
// whoever found the problem (the schema, or the handler with an InvalidArgumentsError), on
// createServer in both eras and on attachPack over an SDK 1.x McpServer.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { captureLogger, resultText } from "@toolshed/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attachPack, connectInMemory, createLogger, createServer, type ToolshedServer } from "../src/index.js";
import { crmPack, FakeCrm } from "./fixtures.js";
import { META, PAGE, refusingPack, TRIP, TRIP_META } from "./more-fixtures.js";
import { rawConnection } from "./raw.js";

const logs = captureLogger(createLogger);

describe("createServer: a handler's InvalidArgumentsError reads as C6", () => {
  let server: ToolshedServer;
  beforeAll(() => {
    server = createServer({ name: "texts", version: "1.0.0", packs: [refusingPack], logger: logs.logger });
  });
  afterAll(async () => {
    await server.close();
  });

  it("2025: the text starts `Invalid arguments for tool`, with the validation class and issues", async () => {
    const client = await connectInMemory(server);
    const trip = (await client.callTool({
      name: "plan_trip",
      arguments: { from: "Oslo", to: "Oslo" },
    })) as CallToolResult;
    expect(trip).toEqual({ content: [{ type: "text", text: TRIP }], isError: true, _meta: { [META]: TRIP_META } });
    const page = (await client.callTool({ name: "next_page", arguments: { cursor: "x" } })) as CallToolResult;
    expect(resultText(page)).toBe(PAGE);
    expect(page._meta?.[META]).toEqual({ kind: "validation", code: "invalid_arguments", retryable: false });
    await client.close();
  });

  it("2026-07-28: the same texts in a complete result", async () => {
    const raw = await rawConnection(server);
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    const trip = await raw.request("tools/call", {
      _meta: meta,
      name: "plan_trip",
      arguments: { from: "Oslo", to: "Oslo" },
    });
    expect(trip.result).toMatchObject({
      resultType: "complete",
      isError: true,
      content: [{ type: "text", text: TRIP }],
      _meta: { [META]: TRIP_META },
    });
    const page = await raw.request("tools/call", { _meta: meta, name: "next_page", arguments: { cursor: "x" } });
    expect(page.result).toMatchObject({ isError: true, content: [{ type: "text", text: PAGE }] });
    await raw.close();
  });
});

describe("attachPack on an SDK 1.x McpServer: C6 as on createServer", () => {
  let mcp: McpServer;
  let client: Client;
  const crm = crmPack(new FakeCrm());
  beforeAll(async () => {
    mcp = new McpServer({ name: "plain", version: "1.0.0" });
    attachPack(mcp, refusingPack, { logger: logs.logger });
    attachPack(mcp, crm, { logger: logs.logger });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await mcp.connect(serverTransport);
    client = new Client({ name: "texts", version: "0.0.0" });
    await client.connect(clientTransport);
  });
  afterAll(async () => {
    await client.close();
    await mcp.close();
  });
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;

  it("arguments that fail the schema get the hint lines and the validation class, not the SDK's text", async () => {
    const several = await call("crm_search_accounts", { query: "A", tier: "huge" });
    expect(several.content).toEqual([
      {
        type: "text",
        text: 'Invalid arguments for tool crm_search_accounts:\nquery: must be at least 2 characters (got 1)\ntier: must be one of "startup", "growth", "enterprise" (got "huge")',
      },
    ]);
    expect(several._meta?.[META]).toMatchObject({ kind: "validation", code: "invalid_arguments", retryable: false });
    const range = await call("crm_search_accounts", { query: "Acme", min_arr: 100, max_arr: 5 });
    expect(resultText(range)).toBe(
      "Invalid arguments for tool crm_search_accounts:\nmax_arr: must be greater than or equal to min_arr",
    );
    expect(resultText(await call("crm_get_account", {}))).toMatch(
      /^Invalid arguments for tool crm_get_account:\naccount_id: /,
    );
  });

  it("an argument the tool does not take is refused with a hint, as its published schema says", async () => {
    const result = await call("crm_get_account", { account_id: "acc_1", acount: "x" });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/^Invalid arguments for tool crm_get_account:\nacount: /);
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === "crm_get_account")?.inputSchema.additionalProperties).toBe(false);
  });

  it("a handler's InvalidArgumentsError or invalid_arguments ToolError reads as C6", async () => {
    const trip = await call("plan_trip", { from: "Oslo", to: "Oslo" });
    expect(trip).toEqual({ content: [{ type: "text", text: TRIP }], isError: true, _meta: { [META]: TRIP_META } });
    expect(resultText(await call("next_page", { cursor: "x" }))).toBe(PAGE);
    expect((await call("plan_trip", { from: "Oslo", to: "Rome" })).structuredContent).toEqual({ route: "Oslo-Rome" });
  });

  it("publishes createServer's schemas, with the SDK's draft-07 $schema key", async () => {
    const { tools } = await client.listTools();
    for (const tool of [...refusingPack.tools, ...crm.tools]) {
      const listed = tools.find((t) => t.name === tool.name);
      const draft7 = { $schema: "http://json-schema.org/draft-07/schema#" };
      expect(listed?.inputSchema).toEqual({ ...tool.listing.inputSchema, ...draft7 });
      if (tool.listing.outputSchema) expect(listed?.outputSchema).toEqual({ ...tool.listing.outputSchema, ...draft7 });
      // The pack's own listing is not changed by the SDK's conversion.
      expect(tool.listing.inputSchema).not.toHaveProperty("$schema");
    }
  });
});
