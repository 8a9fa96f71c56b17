// Mcp-Param-* headers (2026-07-28, SEP-2243) as a client and a proxy see them: a parameter marked
// x-mcp-header travels in a header too, and the server refuses a call whose header and body differ
// (HTTP 400, -32020) before anything runs.
import { definePack, defineTool } from "@toolshed/schema";
import { MCP_HEADERS, MODERN_VERSION, modernEnvelope } from "@toolshed/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createHttpApp } from "../src/index.js";

const silent = { error() {}, warn() {}, info() {}, debug() {} };
const runs: unknown[] = [];

const executeSql = defineTool({
  name: "execute_sql",
  description: "Runs SQL in a region",
  input: z.object({
    region: z.string().describe("Cloud region").meta({ "x-mcp-header": "Region" }),
    query: z.string().describe("SQL text"),
    shard: z.number().int().optional().describe("Shard number").meta({ "x-mcp-header": "Shard" }),
    dry_run: z.boolean().optional().describe("Only plan").meta({ "x-mcp-header": "Dry-Run" }),
  }),
  handler: (args) => {
    runs.push(args);
    return `ran in ${args.region}`;
  },
});

const sqlPack = definePack({ name: "sql", tools: [executeSql] });
const app = createHttpApp({ packs: [sqlPack], logger: silent });
// One caller may not see the tool at all.
const guarded = createHttpApp({
  packs: [sqlPack],
  logger: silent,
  tokens: [
    { id: "analyst", token: "analyst-token-0123456789", scopes: ["tools:read", "tools:write"] },
    { id: "outsider", token: "outsider-token-012345678", scopes: ["tools:read", "tools:write"] },
  ],
  canAccess: (auth) => auth?.clientId !== "outsider",
});
afterAll(() => Promise.all([app.close({ graceMs: 0 }), guarded.close({ graceMs: 0 })]));

async function call(
  args: Record<string, unknown>,
  headers: Record<string, string>,
  version = MODERN_VERSION,
  to = app,
) {
  const modern = version === MODERN_VERSION;
  const params = { name: "execute_sql", arguments: args, ...(modern ? { _meta: modernEnvelope() } : {}) };
  const res = await to.fetch(
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: {
        ...MCP_HEADERS,
        "mcp-protocol-version": version,
        ...(modern ? { "mcp-method": "tools/call", "mcp-name": "execute_sql" } : {}),
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/call", params }),
    }),
  );
  return {
    status: res.status,
    body: (await res.json()) as { result?: unknown; error?: { code: number; message: string } },
  };
}

const refused = (message: string) => ({
  status: 400,
  body: { jsonrpc: "2.0", id: 9, error: { code: -32020, message } },
});

describe("Mcp-Param-* headers on a 2026-07-28 tools/call", () => {
  it("run the call when they say what the body says: plain, Base64, padded with spaces", async () => {
    const ok = [
      [{ region: "us-west1", query: "SELECT 1" }, { "Mcp-Param-Region": "us-west1" }],
      [
        { region: "Zürich", query: "SELECT 1" },
        { "mcp-param-region": `=?base64?${Buffer.from("Zürich").toString("base64")}?=` },
      ],
      [
        { region: " padded ", query: "q" },
        { "MCP-PARAM-REGION": `=?base64?${Buffer.from(" padded ").toString("base64")}?=` },
      ],
      [
        { region: "eu", query: "q", shard: 42, dry_run: false },
        { "Mcp-Param-Region": "  eu ", "Mcp-Param-Shard": " 42 ", "Mcp-Param-Dry-Run": "false" },
      ],
      // Without both sentinel ends a value is literal text.
      [{ region: "=?base64?SGk=", query: "q" }, { "Mcp-Param-Region": "=?base64?SGk=" }],
    ] as const;
    for (const [args, headers] of ok) {
      const { status, body } = await call(args, headers);
      expect(status, JSON.stringify(headers)).toBe(200);
      expect(body.result).toMatchObject({
        resultType: "complete",
        content: [{ type: "text", text: `ran in ${args.region}` }],
      });
    }
  });

  it("refuse a missing header for a value in the body, and a header for a value the body lacks", async () => {
    runs.length = 0;
    expect(await call({ region: "us-west1", query: "q" }, {})).toEqual(
      refused(
        'Header mismatch: the Mcp-Param-Region header is required when arguments.region has a value (send "us-west1", =?base64?…?= encoded when it is not plain ASCII)',
      ),
    );
    expect(
      await call({ region: "us-west1", query: "q" }, { "Mcp-Param-Region": "us-west1", "Mcp-Param-Shard": "3" }),
    ).toEqual(
      refused(
        "Header mismatch: the Mcp-Param-Shard header is sent, but arguments.shard has no value; leave the header out, or send the argument",
      ),
    );
    // null counts as no value: no header expected.
    expect((await call({ region: "eu", query: "q", shard: null }, { "Mcp-Param-Region": "eu" })).status).toBe(200);
    expect(runs).toHaveLength(1);
  });

  it("refuse a header that says something else, or cannot be read", async () => {
    runs.length = 0;
    expect(await call({ region: "us-west1", query: "q" }, { "Mcp-Param-Region": "us-east1" })).toEqual(
      refused('Header mismatch: Mcp-Param-Region header "us-east1" does not match arguments.region "us-west1"'),
    );
    expect(
      await call({ region: "eu", query: "q", shard: 4 }, { "Mcp-Param-Region": "eu", "Mcp-Param-Shard": "4x" }),
    ).toEqual(refused('Header mismatch: Mcp-Param-Shard header "4x" does not match arguments.shard 4; send "4"'));
    expect(
      await call(
        { region: "eu", query: "q", dry_run: true },
        { "Mcp-Param-Region": "eu", "Mcp-Param-Dry-Run": "TRUE" },
      ),
    ).toEqual(
      refused('Header mismatch: Mcp-Param-Dry-Run header "TRUE" does not match arguments.dry_run true; send "true"'),
    );
    for (const bad of ["=?base64?SGVsbG8?=", "=?base64?SGVs!!!bG8=?="]) {
      expect(await call({ region: "Hello", query: "q" }, { "Mcp-Param-Region": bad })).toEqual(
        refused(
          "Header mismatch: the Mcp-Param-Region header is not valid =?base64?…?= encoding (Base64 with its = padding, between =?base64? and ?=)",
        ),
      );
    }
    expect(runs).toEqual([]);
  });

  it("refuse an integer in any spelling but decimal digits, which a gateway reading decimal would read otherwise (issue 58.3)", async () => {
    runs.length = 0;
    for (const spelling of ["0x7", "0X7", "0b111", "0o7", "07", "+7", "7.0", "7e0", "0007"]) {
      const answer = await call(
        { region: "eu", query: "q", shard: 7 },
        { "Mcp-Param-Region": "eu", "Mcp-Param-Shard": spelling },
      );
      expect(answer, spelling).toEqual(
        refused(`Header mismatch: Mcp-Param-Shard header "${spelling}" does not match arguments.shard 7; send "7"`),
      );
    }
    expect(runs).toEqual([]);
    // Negative and zero in their decimal spelling are fine; beyond the safe integers nothing is exact.
    for (const [shard, spelling] of [
      [-7, "-7"],
      [0, "0"],
    ] as const) {
      const { status } = await call(
        { region: "eu", query: "q", shard },
        { "Mcp-Param-Region": "eu", "Mcp-Param-Shard": spelling },
      );
      expect(status, spelling).toBe(200);
    }
    expect(
      await call(
        { region: "eu", query: "q", shard: 2 ** 53 },
        { "Mcp-Param-Region": "eu", "Mcp-Param-Shard": String(2 ** 53) },
      ),
    ).toEqual(
      refused(
        "Header mismatch: arguments.shard 9007199254740992 is beyond the integers Mcp-Param-Shard can carry exactly (-9007199254740991 to 9007199254740991); send a smaller value",
      ),
    );
    expect(runs).toHaveLength(2);
  });

  it("never let the tool run on a value the headers did not carry: header parameters are not coerced (issue 58.2)", async () => {
    runs.length = 0;
    // A name in another case, with no header: lax coercion would have renamed it to region.
    const renamed = await call({ Region: "eu", query: "q" }, {});
    expect(renamed.status).toBe(200);
    expect(renamed.body.result).toMatchObject({
      isError: true,
      content: [
        {
          text: expect.stringMatching(
            /^Invalid arguments for tool execute_sql:\nRegion: unknown argument; did you mean "region"\?[^\n]*\nregion: is required/,
          ),
        },
      ],
    });
    // Text where the schema wants an integer or a boolean, against a header that says otherwise.
    expect(
      await call({ region: "eu", query: "q", shard: "7" }, { "Mcp-Param-Region": "eu", "Mcp-Param-Shard": "1" }),
    ).toEqual(refused('Header mismatch: Mcp-Param-Shard header "1" does not match arguments.shard "7"'));
    expect(
      await call(
        { region: "eu", query: "q", dry_run: "FALSE" },
        { "Mcp-Param-Region": "eu", "Mcp-Param-Dry-Run": "true" },
      ),
    ).toEqual(refused('Header mismatch: Mcp-Param-Dry-Run header "true" does not match arguments.dry_run "FALSE"'));
    // Even when the header repeats the text, the text is not taken for a number or a boolean.
    for (const [args, headers, hint] of [
      [{ shard: "7" }, { "Mcp-Param-Shard": "7" }, 'shard: must be a number (got "7")'],
      [{ dry_run: "FALSE" }, { "Mcp-Param-Dry-Run": "FALSE" }, 'dry_run: must be true or false (got "FALSE")'],
    ] as const) {
      const answer = await call({ region: "eu", query: "q", ...args }, { "Mcp-Param-Region": "eu", ...headers });
      expect(answer.status).toBe(200);
      expect(answer.body.result).toMatchObject({
        isError: true,
        content: [{ text: expect.stringContaining(hint) }],
      });
    }
    expect(runs).toEqual([]);
  });

  it("say nothing of a tool the caller may not see: the call answers it as unknown", async () => {
    const wrong = { "Mcp-Param-Region": "elsewhere" };
    const args = { region: "us-west1", query: "q" };
    const seen = await call(
      args,
      { ...wrong, authorization: "Bearer analyst-token-0123456789" },
      MODERN_VERSION,
      guarded,
    );
    expect(seen.body.error?.code).toBe(-32020);
    const hidden = await call(
      args,
      { ...wrong, authorization: "Bearer outsider-token-012345678" },
      MODERN_VERSION,
      guarded,
    );
    expect(hidden.body.error?.code).toBe(-32602);
    expect(hidden.body.error?.message).toMatch(/^Unknown tool: execute_sql/);
  });

  it("are not looked at in the 2025 era, which has no such headers", async () => {
    const { status, body } = await call(
      { region: "us-west1", query: "q" },
      { "Mcp-Param-Region": "elsewhere" },
      "2025-06-18",
    );
    expect(status).toBe(200);
    expect(body.result).toMatchObject({ content: [{ type: "text", text: "ran in us-west1" }] });
  });
});
