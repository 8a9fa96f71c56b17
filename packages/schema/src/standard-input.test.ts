import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import * as v from "valibot";
import { describe, expect, expectTypeOf, it } from "vitest";
import { defineTool, shapeToolResult, type ToolDefinition } from "./tool.js";

// Tools written with other Standard Schema libraries: validated by the library, published from its
// Standard JSON Schema.

function issues(tool: ToolDefinition, args: unknown): string[] {
  const r = tool.parseArguments(args);
  if (r.success) throw new Error(`expected a failure, got ${JSON.stringify(r.data)}`);
  return r.issues.map((i) => (i.path === "" ? i.message : `${i.path}: ${i.message}`));
}

describe("an ArkType input", () => {
  const forecast = defineTool({
    name: "forecast",
    description: "Weather forecast",
    input: type({
      city: type("string").describe("a city name"),
      "days?": type("1 <= number.integer <= 7").describe("a whole number of days ahead, 1 to 7"),
    }),
    handler: (args) => {
      expectTypeOf(args).toEqualTypeOf<{ city: string; days?: number }>();
      return `${args.city}: sunny`;
    },
  });

  it("is published from ArkType's JSON Schema", () => {
    expect(forecast.schemaKind).toBe("standard");
    expect(forecast.listing.inputSchema).toEqual({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: {
        city: { type: "string", description: "a city name" },
        days: { type: "integer", minimum: 1, maximum: 7, description: "a whole number of days ahead, 1 to 7" },
      },
      required: ["city"],
    });
  });

  // ArkType says a description in its messages: written as what is expected, it serves both.
  it("validates with ArkType and says where, once", () => {
    expect(forecast.parseArguments({ city: "Oslo", days: 3 })).toEqual({
      success: true,
      data: { city: "Oslo", days: 3 },
    });
    expect(issues(forecast, { city: 3, days: 9 })).toEqual([
      "city: must be a city name (was a number)",
      "days: must be a whole number of days ahead, 1 to 7 (was 9)",
    ]);
    expect(issues(forecast, undefined)).toEqual(["city: must be a string (was missing)"]);
  });
});

describe("a Valibot input", () => {
  const schema = v.strictObject({
    title: v.pipe(v.string(), v.minLength(1), v.description("Note title")),
    tags: v.optional(v.pipe(v.array(v.string()), v.maxLength(3), v.description("Labels, at most 3")), []),
  });
  const addNote = defineTool({
    name: "add_note",
    description: "Adds a note",
    input: toStandardJsonSchema(schema),
    output: toStandardJsonSchema(v.object({ id: v.number(), title: v.string() })),
    handler: (args) => {
      expectTypeOf(args).toEqualTypeOf<{ title: string; tags: string[] }>();
      return { id: 1, title: args.title };
    },
  });

  it("is published from @valibot/to-json-schema, and its defaults apply", () => {
    expect(addNote.listing.inputSchema).toMatchObject({
      type: "object",
      properties: { title: { type: "string", minLength: 1, description: "Note title" } },
      required: ["title"],
    });
    expect(addNote.parseArguments({ title: "Milk" })).toEqual({ success: true, data: { title: "Milk", tags: [] } });
  });

  it("reports Valibot's problems with their paths, and text no store keeps", () => {
    expect(issues(addNote, { title: "", tags: ["a", "b", "c", "d"], extra: 1 })).toEqual([
      "title: Invalid length: Expected >=1 but received 0",
      "tags: Invalid length: Expected <=3 but received 4",
      'extra: Invalid key: Expected never but received "extra"',
    ]);
    expect(issues(addNote, { title: "a\u0000" })).toEqual([
      "title: must not contain the NUL character (\\u0000, character 2); leave it out",
    ]);
  });

  it("checks results against a Valibot output schema (C3)", () => {
    const ok = shapeToolResult(addNote, { id: 1, title: "Milk" });
    expect(ok.ok && ok.result.structuredContent).toEqual({ id: 1, title: "Milk" });
    expect(shapeToolResult(addNote, { id: "1", title: "Milk" })).toEqual({
      ok: false,
      problem:
        'output of tool add_note does not match its output schema: id: Invalid type: Expected number but received "1"',
    });
  });

  it("fails when it is made without JSON Schema, or validating asynchronously (C5)", () => {
    const define = (input: unknown) => () =>
      defineTool({ name: "bad_tool", description: "Bad", input: input as never, handler: () => 1 });
    expect(define(v.object({ a: v.string() }))).toThrow(
      'Tool "bad_tool": input schema: a valibot schema without Standard JSON Schema (~standard.jsonSchema) cannot be published in tools/list; use a library version that has it (ArkType 2.1.28+, Valibot with toStandardJsonSchema() of @valibot/to-json-schema) or pass jsonSchema(document) [C5]',
    );
    expect(define(toStandardJsonSchema(v.objectAsync({ a: v.pipe(v.string(), v.description("A")) }) as never))).toThrow(
      'Tool "bad_tool": input schema: the valibot schema validates asynchronously, which Toolshed does not support; use its synchronous form [C5]',
    );
    expect(define(toStandardJsonSchema(v.object({ a: v.string() })))).toThrow(
      'Tool "bad_tool": input property "a" has no description; add a description (ArkType .describe(), Valibot v.description()) [C13]',
    );
  });
});
