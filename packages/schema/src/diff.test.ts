import { describe, expect, it } from "vitest";
import { z } from "zod";
import { diffContracts, type PublishedContract } from "./diff.js";
import type { JsonSchema } from "./json-schema.js";
import { defineTool } from "./tool.js";

function contract(...tools: ReturnType<typeof defineTool>[]): PublishedContract {
  return { tools: tools.map((t) => t.listing) };
}

const base = defineTool({
  name: "search_tickets",
  description: "Search tickets.",
  input: z.object({
    query: z.string().describe("Words"),
    status: z.enum(["open", "closed", "any"]).default("open").describe("Status"),
    limit: z.number().int().min(1).max(50).default(10).describe("Limit"),
  }),
  output: z.object({ count: z.number(), ids: z.array(z.string()) }),
  handler: () => ({ count: 0, ids: [] }),
});

function variant(
  input: z.ZodObject<z.core.$ZodLooseShape>,
  output: z.ZodType = z.object({ count: z.number(), ids: z.array(z.string()) }),
) {
  return defineTool({
    name: "search_tickets",
    description: "Search tickets.",
    input,
    output,
    handler: () => ({}) as never,
  });
}

describe("diffContracts", () => {
  it("finds nothing between identical contracts", () => {
    expect(diffContracts(contract(base), contract(base))).toEqual([]);
  });

  it("a removed tool is breaking, an added one additive", () => {
    const other = defineTool({ name: "other", description: "x", input: z.object({}), handler: () => 1 });
    expect(diffContracts(contract(base), contract(other))).toEqual([
      { kind: "breaking", at: "tool search_tickets", message: "tool removed" },
      { kind: "additive", at: "tool other", message: "tool added" },
    ]);
  });

  it("an argument added as required is breaking; optional is additive", () => {
    const required = variant(base.input.extend({ team: z.string().describe("Team") }));
    expect(diffContracts(contract(base), contract(required))).toContainEqual({
      kind: "breaking",
      at: "tool search_tickets input.team",
      message: "added as a required argument",
    });
    const optional = variant(base.input.extend({ team: z.string().optional().describe("Team") }));
    expect(diffContracts(contract(base), contract(optional))).toEqual([
      { kind: "additive", at: "tool search_tickets input.team", message: "optional argument added" },
    ]);
  });

  it("a narrowed enum or bound is breaking; a widened one additive", () => {
    const narrowed = variant(
      z.object({
        query: z.string().describe("Words"),
        status: z.enum(["open", "closed"]).default("open").describe("Status"),
        limit: z.number().int().min(1).max(20).default(10).describe("Limit"),
      }),
    );
    const changes = diffContracts(contract(base), contract(narrowed));
    expect(changes).toContainEqual({
      kind: "breaking",
      at: "tool search_tickets input.status",
      message: 'enum lost "any"',
    });
    expect(changes).toContainEqual({
      kind: "breaking",
      at: "tool search_tickets input.limit",
      message: "maximum lowered to 20",
    });
    expect(diffContracts(contract(narrowed), contract(base)).every((c) => c.kind === "additive")).toBe(true);
  });

  it("an output field removed or retyped is breaking; one added is additive", () => {
    const removed = variant(base.input, z.object({ count: z.number() }));
    expect(diffContracts(contract(base), contract(removed))).toEqual([
      { kind: "breaking", at: "tool search_tickets output.ids", message: "field removed" },
    ]);
    const retyped = variant(base.input, z.object({ count: z.string(), ids: z.array(z.string()) }));
    expect(diffContracts(contract(base), contract(retyped))).toContainEqual({
      kind: "breaking",
      at: "tool search_tickets output.count",
      message: "may now be string",
    });
    const added = variant(base.input, z.object({ count: z.number(), ids: z.array(z.string()), next: z.string() }));
    expect(diffContracts(contract(base), contract(added))).toEqual([
      { kind: "additive", at: "tool search_tickets output.next", message: "field added" },
    ]);
  });

  it("dropping the ±(2^53-1) bounds Zod gave every integer is no change; dropping a real bound still is", () => {
    const safe = { type: "integer", minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER };
    const tool = (version: JsonSchema, count: JsonSchema) => ({
      name: "get_note",
      inputSchema: { type: "object", properties: { version }, required: ["version"] },
      outputSchema: { type: "object", properties: { count }, required: ["count"] },
    });
    const before = { tools: [tool({ ...safe, minimum: 1 }, safe)] };
    const after = { tools: [tool({ type: "integer", minimum: 1 }, { type: "integer" })] };
    expect(diffContracts(before, after)).toEqual([]);
    const looser = { tools: [tool({ type: "integer" }, { type: "integer" })] };
    expect(diffContracts(after, looser)).toEqual([
      { kind: "additive", at: "tool get_note input.version", message: "minimum lowered (removed)" },
    ]);
    // An output that may now be any integer where it was bounded by 100 is still breaking.
    const capped = { tools: [tool({ type: "integer", minimum: 1 }, { type: "integer", maximum: 100 })] };
    expect(diffContracts(capped, after)).toEqual([
      { kind: "breaking", at: "tool get_note output.count", message: "maximum raised (removed)" },
    ]);
  });

  it("prompts and resources: removals and new required arguments are breaking", () => {
    const before: PublishedContract = {
      tools: [],
      resourceTemplates: [{ uriTemplate: "note://{title}" }],
      prompts: [{ name: "summarize_note", arguments: [{ name: "title", required: true }] }],
    };
    const after: PublishedContract = {
      tools: [],
      resourceTemplates: [],
      prompts: [
        {
          name: "summarize_note",
          arguments: [
            { name: "title", required: true },
            { name: "style", required: true },
          ],
        },
      ],
    };
    expect(diffContracts(before, after)).toEqual([
      { kind: "breaking", at: "resource template note://{title}", message: "resource template removed" },
      { kind: "breaking", at: "prompt summarize_note.style", message: "added as a required argument" },
    ]);
  });
});
