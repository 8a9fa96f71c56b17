import { describe, expect, it } from "vitest";
import { z } from "zod";
import { definePack } from "./pack.js";
import { reshapePack, reshapeTool } from "./reshape.js";
import { defineTool } from "./tool.js";

const search = defineTool({
  name: "search_notes",
  description: "Search notes; read one with get_note",
  input: z.object({
    query: z.string().min(1).max(200).describe("Words to find"),
    limit: z.number().int().min(1).max(50).default(10).describe("Most hits to return"),
    status: z.enum(["open", "archived"]).default("open").describe("Which notes"),
    tags: z.array(z.string().max(20)).max(10).optional().describe("Tags every hit has"),
  }),
  annotations: { readOnlyHint: true },
  handler: (args) => JSON.stringify(args),
});
const get = defineTool({
  name: "get_note",
  description: "Get a note by its title",
  input: z.object({ title: z.string().max(100).describe("Title") }),
  annotations: { readOnlyHint: true },
  handler: ({ title }) => title,
});
const remove = defineTool({
  name: "delete_note",
  description: "Delete a note",
  input: z.object({ title: z.string().max(100).describe("Title") }),
  annotations: { readOnlyHint: false, destructiveHint: true },
  handler: () => "deleted",
});

describe("reshapeTool", () => {
  const reshaped = reshapeTool(search, {
    name: "find_notes",
    description: "Find open notes",
    arguments: {
      query: { description: "What to look for", maxLength: 50 },
      limit: { maximum: 20 },
      status: { value: "open" },
      tags: { maxItems: 3 },
    },
  });

  it("publishes what it enforces: the new name, description, narrower bounds, and no fixed argument", () => {
    expect(reshaped.name).toBe("find_notes");
    expect(reshaped.listing.name).toBe("find_notes");
    expect(reshaped.listing.description).toBe("Find open notes");
    const properties = reshaped.listing.inputSchema.properties as Record<string, Record<string, unknown>>;
    expect(Object.keys(properties)).toEqual(["query", "limit", "tags"]);
    expect(properties.query).toMatchObject({ description: "What to look for", minLength: 1, maxLength: 50 });
    expect(properties.limit).toMatchObject({ minimum: 1, maximum: 20 });
    expect(properties.tags).toMatchObject({ maxItems: 3 });
    // The tool it came from is unchanged.
    expect((search.listing.inputSchema.properties as Record<string, { maxLength?: number }>).query?.maxLength).toBe(
      200,
    );
  });

  it("checks the narrower bounds with hints, refuses the fixed argument, and passes its value", async () => {
    expect(reshaped.parseArguments({ query: "x".repeat(60), limit: 30, tags: ["a", "b", "c", "d"] })).toEqual({
      success: false,
      issues: [
        { path: "query", message: "must be at most 50 characters (got 60)" },
        { path: "limit", message: "must be at most 20 (got 30)" },
        { path: "tags", message: "must have at most 3 items (got 4)" },
      ],
    });
    expect(reshaped.parseArguments({ query: "milk", status: "archived" })).toEqual({
      success: false,
      issues: [
        {
          path: "status",
          message: "unknown argument; this server sets status itself. Valid arguments: query, limit, tags",
        },
      ],
    });
    const ok = reshaped.parseArguments({ query: "milk", limit: "5" }, { coerce: true });
    expect(ok.success && ok.data).toEqual({ query: "milk", limit: 5, status: "open" });
    // The tool's own checks still hold.
    expect(reshaped.parseArguments({ query: "" })).toMatchObject({ success: false, issues: [{ path: "query" }] });
  });

  it("drops a fixed argument's x-mcp-header: a client no longer sends it", () => {
    const sharded = defineTool({
      name: "query",
      description: "Run a query",
      input: z.object({
        sql: z.string().max(1000).describe("SQL"),
        region: z.string().max(20).describe("Region").meta({ "x-mcp-header": "Region" }),
        shard: z.number().int().optional().describe("Shard").meta({ "x-mcp-header": "Shard" }),
      }),
      annotations: { readOnlyHint: true },
      handler: () => "ok",
    });
    const fixed = reshapeTool(sharded, { arguments: { region: { value: "eu" } } });
    expect(fixed.headerParams).toEqual([{ name: "Shard", path: ["shard"], type: "integer" }]);
    expect(sharded.headerParams).toHaveLength(2);
  });

  it("refuses a change that would widen a bound, fit no argument, or fix a value the tool refuses", () => {
    expect(() => reshapeTool(search, { arguments: { limit: { maximum: 100 } } })).toThrowError(
      "arguments.limit.maximum 100 would widen the tool's own maximum 50; a transform can only narrow a bound",
    );
    expect(() => reshapeTool(search, { arguments: { limt: { maximum: 5 } } })).toThrowError(
      'arguments.limt names no argument of the tool; did you mean "limit"? Its arguments: query, limit, status, tags',
    );
    expect(() => reshapeTool(search, { arguments: { query: { maximum: 5 } } })).toThrowError(
      "arguments.query.maximum applies to number or integer arguments; query is string",
    );
    expect(() => reshapeTool(search, { arguments: { status: { value: "deleted" } } })).toThrowError(
      /the fixed value of status must be one of "open", "archived" \(got "deleted"\)/,
    );
  });
});

describe("reshapePack", () => {
  const pack = definePack({ name: "notes", tools: [search, get, remove], requiredScopes: ["notes"] });

  it("hides, renames with a prefix, names renamed tools in descriptions, and adds scopes", () => {
    const shaped = reshapePack(pack, {
      prefix: "kb_",
      scopes: ["kb:read"],
      tools: { delete_note: { hide: true }, get_note: { name: "read_note" } },
    });
    expect(shaped.tools.map((t) => t.name)).toEqual(["kb_search_notes", "kb_read_note"]);
    expect(shaped.tools[0]?.listing.description).toBe("Search notes; read one with kb_read_note");
    expect(shaped.requiredScopes).toEqual(["notes", "kb:read"]);
  });

  it("refuses a change naming no tool, and two tools given one name", () => {
    expect(() => reshapePack(pack, { tools: { get_notes: { hide: true } } })).toThrowError(
      'tools.get_notes names no tool of the pack; did you mean "get_note"? Its tools: search_notes, get_note, delete_note',
    );
    expect(() => reshapePack(pack, { tools: { get_note: { name: "delete_note" } } })).toThrowError(
      'name is defined twice (in pack "notes" and pack "notes")',
    );
  });
});
