// Where Toolshed differs from the seed lessons (docs/parity.md), shown against the real SDK
// McpServer (1.x) and Toolshed's own server.
import { Client as V2Client, InMemoryTransport as V2InMemoryTransport } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { McpServer as V2McpServer } from "@modelcontextprotocol/server";
import { definePack, defineTool, fullResult } from "@toolshed/schema";
import { captureLogger, resultText } from "@toolshed/test-support";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { attachPack, connectInMemory, createLogger, createServer } from "../src/index.js";
import { META } from "./more-fixtures.js";

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function connectTo(server: McpServer): Promise<Client> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: "parity-test", version: "0.0.0" });
  await client.connect(clientTransport);
  closers.push(
    () => client.close(),
    () => server.close(),
  );
  return client;
}

async function toolshed(tools: Parameters<typeof definePack>[0]["tools"], logger = captureLogger(createLogger).logger) {
  const server = createServer({ name: "parity", version: "1.0.0", packs: [definePack({ name: "p", tools })], logger });
  const client = await connectInMemory(server);
  closers.push(
    () => client.close(),
    () => server.close(),
  );
  return client;
}

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

// The seed lesson's TypeScript example, as it is written there (snake_case names as in the Python one).
const SearchAccountsInput = z
  .object({
    query: z.string().min(2).max(200).describe("Name or keyword"),
    tier: z.enum(["startup", "growth", "enterprise"]).optional().describe("Only this tier"),
    min_arr: z.number().nonnegative().default(0).describe("Lowest ARR in dollars"),
    max_arr: z.number().nonnegative().optional().describe("Highest ARR in dollars"),
  })
  .refine((data) => data.max_arr === undefined || data.max_arr >= data.min_arr, {
    message: "must be greater than or equal to min_arr",
    path: ["max_arr"],
  });

const DESCRIPTION = "Search CRM accounts by name/keyword, optionally filtered by tier and ARR range.";

/** The seed's crm_search_accounts as a Toolshed tool; `seen` records what the handler was given. */
function searchAccounts(seen: unknown[]) {
  return defineTool({
    name: "crm_search_accounts",
    description: DESCRIPTION,
    input: SearchAccountsInput,
    handler: (args) => {
      seen.push(args);
      return { count: 0, accounts: [] };
    },
  });
}

describe("the seed's TypeScript example on SDK 1.32", () => {
  it("inputSchema: SearchAccountsInput.shape drops the .refine(): the handler runs with min_arr: 100, max_arr: 10", async () => {
    const seen: unknown[] = [];
    const mcp = new McpServer({ name: "seed", version: "1.0.0" });
    mcp.registerTool(
      "crm_search_accounts",
      { description: DESCRIPTION, inputSchema: SearchAccountsInput.shape },
      async (args) => {
        seen.push(args);
        return { content: [{ type: "text", text: JSON.stringify({ count: 0, accounts: [] }) }] };
      },
    );
    const client = await connectTo(mcp);
    const result = await call(client, "crm_search_accounts", { query: "acme", min_arr: 100, max_arr: 10 });
    expect(result.isError).toBeFalsy();
    expect(seen).toEqual([{ query: "acme", min_arr: 100, max_arr: 10 }]);
  });

  it("defineTool keeps the .refine(): createServer and attachPack reject min_arr: 100, max_arr: 10 before the handler runs", async () => {
    const seen: unknown[] = [];
    const tool = searchAccounts(seen);
    const own = await toolshed([tool]);
    const refused = await call(own, "crm_search_accounts", { query: "acme", min_arr: 100, max_arr: 10 });
    expect(refused.isError).toBe(true);
    expect(resultText(refused)).toBe(
      "Invalid arguments for tool crm_search_accounts:\nmax_arr: must be greater than or equal to min_arr",
    );
    const mcp = new McpServer({ name: "attached", version: "1.0.0" });
    attachPack(mcp, definePack({ name: "crm", tools: [tool] }), { logger: captureLogger(createLogger).logger });
    const attached = await connectTo(mcp);
    const alsoRefused = await call(attached, "crm_search_accounts", { query: "acme", min_arr: 100, max_arr: 10 });
    expect(alsoRefused.isError).toBe(true);
    expect(resultText(alsoRefused)).toContain("must be greater than or equal to min_arr");
    expect(seen).toEqual([]);
    // A valid range reaches the handler on both.
    await call(own, "crm_search_accounts", { query: "acme", min_arr: 10, max_arr: 100 });
    await call(attached, "crm_search_accounts", { query: "acme", min_arr: 10, max_arr: 100 });
    expect(seen).toEqual([
      { query: "acme", min_arr: 10, max_arr: 100 },
      { query: "acme", min_arr: 10, max_arr: 100 },
    ]);
  });
});

describe("null for an optional argument", () => {
  it("tier: null is tier left out on createServer; the published schema does not change", async () => {
    const seen: unknown[] = [];
    const client = await toolshed([searchAccounts(seen)]);
    const result = await call(client, "crm_search_accounts", { query: "acme", tier: null, max_arr: null });
    expect(result.isError).toBeFalsy();
    expect(seen).toEqual([{ query: "acme", min_arr: 0 }]);
    const { tools } = await client.listTools();
    expect(tools[0]?.inputSchema.properties?.tier).toEqual({
      type: "string",
      enum: ["startup", "growth", "enterprise"],
      description: "Only this tier",
    });
  });

  it("a required argument sent as null is a hint that says it is required", async () => {
    const client = await toolshed([searchAccounts([])]);
    const result = await call(client, "crm_search_accounts", { query: null });
    expect(resultText(result)).toBe(
      "Invalid arguments for tool crm_search_accounts:\nquery: is required and must be a string (got null)",
    );
    expect(result._meta?.[META]).toMatchObject({ kind: "validation", code: "invalid_arguments", retryable: false });
  });

  it("attachPack on an SDK 1.x McpServer validates with parseArguments too: tier: null is tier left out", async () => {
    const seen: unknown[] = [];
    const mcp = new McpServer({ name: "attached", version: "1.0.0" });
    attachPack(mcp, definePack({ name: "crm", tools: [searchAccounts(seen)] }), {
      logger: captureLogger(createLogger).logger,
    });
    const client = await connectTo(mcp);
    const result = await call(client, "crm_search_accounts", { query: "acme", tier: null });
    expect(result.isError).toBeFalsy();
    expect(seen).toEqual([{ query: "acme", min_arr: 0 }]);
    expect(resultText(await call(client, "crm_search_accounts", { query: null }))).toBe(
      "Invalid arguments for tool crm_search_accounts:\nquery: is required and must be a string (got null)",
    );
  });
});

describe("attachPack on an SDK v2 McpServer", () => {
  it("validates with parseArguments: tier: null is tier left out, and the .refine() runs", async () => {
    const seen: unknown[] = [];
    const mcp = new V2McpServer({ name: "v2", version: "1.0.0" });
    attachPack(mcp, definePack({ name: "crm", tools: [searchAccounts(seen)] }), {
      logger: captureLogger(createLogger).logger,
    });
    const [clientSide, serverSide] = V2InMemoryTransport.createLinkedPair();
    await mcp.connect(serverSide);
    const client = new V2Client({ name: "parity-test", version: "0.0.0" });
    await client.connect(clientSide);
    closers.push(
      () => client.close(),
      () => mcp.close(),
    );
    const v2call = async (args: Record<string, unknown>) =>
      (await client.callTool({ name: "crm_search_accounts", arguments: args })) as CallToolResult;
    expect((await v2call({ query: "acme", tier: null })).isError).toBeFalsy();
    expect(seen).toEqual([{ query: "acme", min_arr: 0 }]);
    expect(resultText(await v2call({ query: "acme", min_arr: 100, max_arr: 10 }))).toBe(
      "Invalid arguments for tool crm_search_accounts:\nmax_arr: must be greater than or equal to min_arr",
    );
    expect(seen).toHaveLength(1);
  });
});

describe("an error returned as a plain object (the seed's anti-pattern)", () => {
  const plain = { isError: true, retryable: true, message: "CRM system timed out, safe to retry" };

  it("is not an error result, and the server log warns once per tool to throw a ToolError", async () => {
    const logs = captureLogger(createLogger);
    const client = await toolshed(
      [
        defineTool({
          name: "crm_get_account",
          description: "Fetch a single CRM account by ID.",
          input: z.object({ account_id: z.string().describe("Account id") }),
          handler: () => plain,
        }),
        defineTool({
          name: "crm_get_contact",
          description: "Fetch a single CRM contact by ID.",
          input: z.object({ contact_id: z.string().describe("Contact id") }),
          output: z.object({ id: z.string() }),
          handler: () => plain as unknown as { id: string },
        }),
        defineTool({
          name: "crm_full_result",
          description: "Returns a full error result on purpose.",
          input: z.object({}),
          handler: () => fullResult({ content: [{ type: "text", text: "gone" }], isError: true }),
        }),
      ],
      logs.logger,
    );
    const first = await call(client, "crm_get_account", { account_id: "acc_1" });
    // Sent as a success: no isError, no error class; the model reads a JSON dict.
    expect(first.isError).toBeFalsy();
    expect(first._meta?.[META]).toBeUndefined();
    expect(JSON.parse(resultText(first))).toEqual(plain);
    await call(client, "crm_get_account", { account_id: "acc_2" });
    // With an output schema it breaks the schema: a masked server fault (C3), also warned about.
    const contact = await call(client, "crm_get_contact", { contact_id: "c_1" });
    expect(contact._meta?.[META]).toMatchObject({ kind: "internal" });
    await call(client, "crm_get_contact", { contact_id: "c_2" });
    // A full result that sets isError is the escape hatch (C4): no warning.
    expect((await call(client, "crm_full_result", {})).isError).toBe(true);
    const warnings = logs.lines.filter((line) => line.level === 40 && String(line.msg).includes("isError: true"));
    expect(warnings.map((line) => line.tool)).toEqual(["crm_get_account", "crm_get_contact"]);
    expect(warnings[0]?.msg).toBe(
      "Tool crm_get_account returned a plain object with isError: true, which is not an error result; throw a ToolError (or a subclass such as UnavailableError) so the client gets isError and the retry class",
    );
  });

  it("attachPack warns too: every tool result passes the same place", async () => {
    const logs = captureLogger(createLogger);
    const mcp = new McpServer({ name: "attached", version: "1.0.0" });
    const tool = defineTool({
      name: "crm_get_account",
      description: "Fetch a single CRM account by ID.",
      input: z.object({ account_id: z.string().describe("Account id") }),
      handler: () => plain,
    });
    attachPack(mcp, definePack({ name: "crm", tools: [tool] }), { logger: logs.logger });
    const client = await connectTo(mcp);
    expect((await call(client, "crm_get_account", { account_id: "acc_1" })).isError).toBeFalsy();
    await call(client, "crm_get_account", { account_id: "acc_1" });
    const warnings = logs.lines.filter((line) => line.level === 40 && line.tool === "crm_get_account");
    expect(warnings).toHaveLength(1);
  });
});
