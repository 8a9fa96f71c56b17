import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "./tool.js";

// x-mcp-header (2026-07-28): parameters a client repeats as Mcp-Param-{name} headers, checked when
// the tool is defined by the same rules a client applies before it keeps a tool.

const define = (input: unknown) =>
  defineTool({ name: "execute_sql", description: "Runs SQL", input: input as never, handler: () => "ok" as never });

const sql = (region: Record<string, unknown>, more: Record<string, unknown> = {}) => ({
  type: "object",
  properties: {
    region: { description: "Region", ...region },
    query: { type: "string", description: "SQL" },
    ...more,
  },
  required: ["query"],
});

describe("x-mcp-header on a tool's parameters", () => {
  it("is published as written and known to the definition, from JSON Schema or Zod", () => {
    const tool = define(
      sql(
        { type: "string", "x-mcp-header": "Region" },
        {
          options: {
            type: "object",
            description: "Options",
            properties: {
              dry_run: { type: "boolean", description: "Only plan", "x-mcp-header": "Dry-Run" },
              limit: { type: ["integer", "null"], description: "Most rows", "x-mcp-header": "Limit" },
            },
          },
        },
      ),
    );
    expect(tool.inputSchema.properties).toMatchObject({ region: { "x-mcp-header": "Region" } });
    expect(tool.headerParams).toEqual([
      { name: "Region", path: ["region"], type: "string" },
      { name: "Dry-Run", path: ["options", "dry_run"], type: "boolean" },
      { name: "Limit", path: ["options", "limit"], type: "integer" },
    ]);
    const zod = define(
      z.object({
        region: z.string().describe("Region").meta({ "x-mcp-header": "Region" }),
        shard: z.number().int().optional().describe("Shard").meta({ "x-mcp-header": "Shard" }),
      }),
    );
    expect(zod.headerParams).toEqual([
      { name: "Region", path: ["region"], type: "string" },
      { name: "Shard", path: ["shard"], type: "integer" },
    ]);
    expect(define(sql({ type: "string" })).headerParams).toEqual([]);
  });

  it("must be a header name token", () => {
    for (const name of ["", "Région", "Region 1", "Region\t1", 7]) {
      expect(() => define(sql({ type: "string", "x-mcp-header": name }))).toThrow(
        /^Tool "execute_sql": input property "region": x-mcp-header must be a header name token .*\[C13\]$/,
      );
    }
  });

  it("must be unique, ignoring case", () => {
    expect(() =>
      define(
        sql(
          { type: "string", "x-mcp-header": "Region" },
          { zone: { type: "string", description: "Zone", "x-mcp-header": "REGION" } },
        ),
      ),
    ).toThrow(
      'Tool "execute_sql": input property "zone": x-mcp-header "REGION" is already used by input property "region" (header names ignore case); give each its own [C13]',
    );
  });

  it("must be on a string, integer or boolean", () => {
    for (const type of ["number", "object", "array"]) {
      expect(() => define(sql({ type, "x-mcp-header": "Region" }))).toThrow(
        `Tool "execute_sql": input property "region": x-mcp-header needs a string, integer or boolean property (not a number, object or array); got type "${type}" [C13]`,
      );
    }
  });

  it("must be reached through properties alone", () => {
    const unreachable = [
      sql({ type: "array", items: { type: "string", "x-mcp-header": "Region" } }),
      {
        type: "object",
        $defs: { r: { type: "string", "x-mcp-header": "Region" } },
        properties: { region: { $ref: "#/$defs/r", description: "Region" } },
      },
      sql({ anyOf: [{ type: "string", "x-mcp-header": "Region" }, { type: "integer" }] }),
    ];
    for (const input of unreachable) {
      expect(() => define(input)).toThrow(
        /^Tool "execute_sql": x-mcp-header "Region" is on a schema that is not a property reached from the input's root through "properties" alone .*\[C13\]$/,
      );
    }
    // Data that looks like the keyword is data.
    expect(define(sql({ type: "object", default: { "x-mcp-header": "Region" } })).headerParams).toEqual([]);
  });
});

describe("a header parameter's value is taken as sent (issue 58.2)", () => {
  // An Mcp-Param-* header carries the body's value as sent; a coerced value would be one no gateway saw.
  const zodTool = define(
    z.object({
      region: z.string().describe("Region").meta({ "x-mcp-header": "Region" }),
      shard: z.number().int().optional().describe("Shard").meta({ "x-mcp-header": "Shard" }),
      target: z
        .object({ zone: z.string().describe("Zone").meta({ "x-mcp-header": "Zone" }) })
        .optional()
        .describe("Target"),
      limit: z.number().int().optional().describe("Rows"),
    }),
  );
  const jsonTool = define({
    type: "object",
    properties: {
      region: { type: "string", description: "Region", "x-mcp-header": "Region" },
      shard: { type: "integer", description: "Shard", "x-mcp-header": "Shard" },
      target: {
        type: "object",
        description: "Target",
        properties: { zone: { type: "string", description: "Zone", "x-mcp-header": "Zone" } },
        additionalProperties: false,
      },
      limit: { type: "integer", description: "Rows" },
    },
    required: ["region"],
    additionalProperties: false,
  });

  for (const [kind, tool] of [
    ["Zod", zodTool],
    ["JSON Schema", jsonTool],
  ] as const) {
    it(`${kind}: no slip is taken at a header parameter or an object holding one; other arguments are still coerced`, () => {
      for (const args of [
        { Region: "eu" },
        { region: "eu", shard: "7" },
        { region: "eu", target: '{"zone":"a"}' },
        { region: "eu", Target: { zone: "a" } },
        { region: "eu", target: { Zone: "a" } },
      ]) {
        const parsed = tool.parseArguments(args);
        expect(parsed.success, JSON.stringify(args)).toBe(false);
      }
      expect(tool.parseArguments({ region: "eu", limit: "5" })).toEqual({
        success: true,
        data: { region: "eu", limit: 5 },
        coercions: [{ path: "limit", kind: "number", from: "string" }],
      });
    });
  }
});
