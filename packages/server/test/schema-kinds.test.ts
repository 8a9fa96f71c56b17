// Tools written as JSON Schema documents and with a Standard Schema library (ArkType), served to a
// real SDK client in the 2025 era and as raw 2026-07-28 requests: the schema is listed as written,
// arguments are checked with the same C6 texts and lax coercion as Zod tools.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { definePack, defineTool } from "@toolshed/schema";
import { resultText } from "@toolshed/test-support";
import { type } from "arktype";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectInMemory, createServer, type ToolshedServer } from "../src/index.js";
import { rawConnection } from "./raw.js";

const ORDER = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: {
    line: {
      type: "object",
      description: "One line of the order",
      properties: {
        sku: { type: "string", pattern: "^[A-Z]{3}-\\d{3}$", description: "Product code such as ABC-123" },
        qty: { type: "integer", minimum: 1, maximum: 99, description: "How many, 1 to 99" },
      },
      required: ["sku", "qty"],
      additionalProperties: false,
    },
  },
  properties: {
    customer: { type: "string", minLength: 1, maxLength: 80, description: "Customer name" },
    lines: { type: "array", items: { $ref: "#/$defs/line" }, minItems: 1, maxItems: 20, description: "Order lines" },
    rush: { type: "boolean", description: "Ship today" },
  },
  required: ["customer", "lines"],
  additionalProperties: false,
};

const placeOrder = defineTool({
  name: "place_order",
  description: "Places an order",
  input: ORDER,
  output: {
    type: "object",
    properties: { items: { type: "integer" }, rush: { type: "boolean" } },
    required: ["items", "rush"],
  },
  handler: (args) => {
    const lines = args.lines as Array<{ qty: number }>;
    return { items: lines.reduce((n, l) => n + l.qty, 0), rush: args.rush === true };
  },
});

const forecast = defineTool({
  name: "forecast",
  description: "Weather forecast",
  input: type({
    city: type("string > 0").describe("a non-empty city name"),
    "days?": type("1 <= number.integer <= 7").describe("a whole number of days, 1 to 7"),
  }),
  handler: (args) => `${args.city}: sunny for ${args.days ?? 1} day(s)`,
});

const pack = definePack({ name: "kinds", tools: [placeOrder, forecast] });

const BAD_ORDER = {
  customer: "Ada",
  lines: [
    { sku: "abc", qty: 500 },
    { colour: "red", sku: "ABC-123" },
  ],
};
const INVALID_ORDER = [
  "Invalid arguments for tool place_order:",
  'lines[0].sku: must match the pattern ^[A-Z]{3}-\\d{3}$ (got "abc")',
  "lines[0].qty: must be at most 99 (got 500)",
  "lines[1].qty: is required (an integer)",
  "lines[1].colour: unknown key; valid keys: sku, qty",
];

describe("JSON Schema and Standard Schema tools over a real client (2025 era)", () => {
  let server: ToolshedServer;
  let client: Client;
  beforeAll(async () => {
    server = createServer({ name: "kinds", version: "1.0.0", packs: [pack] });
    client = await connectInMemory(server);
  });
  afterAll(async () => {
    await client.close();
    await server.close();
  });

  it("lists the JSON Schema document as written, $ref and $defs kept", async () => {
    const { tools } = await client.listTools();
    const order = tools.find((t) => t.name === "place_order");
    expect(order?.inputSchema).toEqual(ORDER);
    expect(tools.find((t) => t.name === "forecast")?.inputSchema).toMatchObject({
      type: "object",
      properties: { city: { type: "string", minLength: 1 } },
      required: ["city"],
    });
  });

  it("calls with valid arguments and returns structured output", async () => {
    const r = (await client.callTool({
      name: "place_order",
      arguments: {
        customer: "Ada",
        lines: [
          { sku: "ABC-123", qty: 2 },
          { sku: "XYZ-999", qty: 1 },
        ],
      },
    })) as CallToolResult;
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toEqual({ items: 3, rush: false });
  });

  it("answers bad arguments with the C6 text, not retryable", async () => {
    const r = (await client.callTool({
      name: "place_order",
      arguments: BAD_ORDER,
    })) as CallToolResult;
    expect(r.isError).toBe(true);
    expect(resultText(r)).toBe(INVALID_ORDER.join("\n"));
    expect(r._meta?.["toolshed.dev/error"]).toMatchObject({
      kind: "validation",
      code: "invalid_arguments",
      retryable: false,
    });
  });

  it("takes a model's slips where only one reading works", async () => {
    const r = (await client.callTool({
      name: "place_order",
      arguments: { Customer: "Ada", lines: '[{"sku": "ABC-123", "qty": "4"}]', rush: "true" },
    })) as CallToolResult;
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toEqual({ items: 4, rush: true });
  });

  it("serves an ArkType tool: its checks, its messages", async () => {
    const ok = (await client.callTool({ name: "forecast", arguments: { city: "Oslo", days: 3 } })) as CallToolResult;
    expect(resultText(ok)).toBe("Oslo: sunny for 3 day(s)");
    const bad = (await client.callTool({ name: "forecast", arguments: { city: "", days: 0 } })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(resultText(bad)).toBe(
      [
        "Invalid arguments for tool forecast:",
        "city: must be a non-empty city name",
        "days: must be a whole number of days, 1 to 7 (was 0)",
      ].join("\n"),
    );
  });
});

describe("the same tools in the 2026-07-28 era", () => {
  it("lists and checks them alike", async () => {
    const server = createServer({ name: "kinds", version: "1.0.0", packs: [pack] });
    const raw = await rawConnection(server);
    const _meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    const list = await raw.request("tools/list", { _meta });
    const tools = list.result?.tools as Array<{ name: string; inputSchema: unknown }>;
    expect(tools.find((t) => t.name === "place_order")?.inputSchema).toEqual(ORDER);
    const bad = await raw.request("tools/call", {
      _meta,
      name: "place_order",
      arguments: BAD_ORDER,
    });
    expect(bad.result).toMatchObject({
      resultType: "complete",
      isError: true,
      content: [{ type: "text", text: INVALID_ORDER.join("\n") }],
    });
    await raw.close();
    await server.close();
  });
});
