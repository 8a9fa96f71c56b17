import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { BatchCollector, ERROR_META_KEY, NotFoundError, runBatch } from "@toolshed/errors";
import { Ajv, type AnySchema } from "ajv";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import type { ParseResult } from "./arguments.js";
import type { ToolContext } from "./context.js";
import {
  defineTool,
  type FullResult,
  fullResult,
  isFullResult,
  shapeToolResult,
  type ToolDefinition,
  type ToolReturn,
} from "./tool.js";

const ctx = {} as ToolContext;
const noInput = z.object({});

function tool<O extends z.ZodType | undefined>(output: O, name = "shape_tool") {
  return defineTool({ name, description: "Shapes results", input: noInput, output, handler: () => undefined as never });
}

/** The shaped result of a value, failing the test when it was rejected. */
function shaped(t: ToolDefinition, value: unknown, format?: "pretty" | "compact"): CallToolResult {
  const r = shapeToolResult(t, value, format);
  if (!r.ok) throw new Error(`expected ok, got problem: ${r.problem}`);
  return r.result;
}

describe("defineTool listing", () => {
  it("publishes name, description and schemas, and nothing undefined", () => {
    const t = defineTool({
      name: "get_note",
      description: "Reads a note",
      input: z.object({ title: z.string().describe("Title") }),
      handler: () => "x",
    });
    expect(t.listing).toEqual({
      name: "get_note",
      description: "Reads a note",
      inputSchema: {
        type: "object",
        properties: { title: { type: "string", description: "Title" } },
        required: ["title"],
        additionalProperties: false,
      },
    });
    expect(Object.keys(t.listing)).toEqual(["name", "description", "inputSchema"]);
    expect(t.kind).toBe("tool");
    expect(t.outputSchema).toBeUndefined();
    expect(t.wrapsOutput).toBe(false);
    expect(t.annotations).toEqual({});
    expect(Object.isFrozen(t)).toBe(true);
  });

  it("publishes an object output schema as is (C1)", () => {
    const t = tool(z.object({ id: z.string(), n: z.number() }));
    expect(t.wrapsOutput).toBe(false);
    expect(t.listing.outputSchema).toEqual({
      type: "object",
      properties: { id: { type: "string" }, n: { type: "number" } },
      required: ["id", "n"],
      additionalProperties: false,
    });
  });

  it.each([
    ["number", z.number(), { type: "number" }],
    ["string", z.string(), { type: "string" }],
    ["boolean", z.boolean(), { type: "boolean" }],
    ["array", z.array(z.string()), { type: "array", items: { type: "string" } }],
    ["null", z.null(), { type: "null" }],
    [
      "nullable object",
      z.object({ a: z.string() }).nullable(),
      {
        anyOf: [
          { type: "object", properties: { a: { type: "string" } }, required: ["a"], additionalProperties: false },
          { type: "null" },
        ],
      },
    ],
  ])("wraps a %s output schema as {result} (C2)", (_label, output, inner) => {
    const t = tool(output);
    expect(t.wrapsOutput).toBe(true);
    expect(t.listing.outputSchema).toEqual({ type: "object", properties: { result: inner }, required: ["result"] });
    expect(t.outputSchema).toBe(t.listing.outputSchema);
  });

  it("treats a record output as an object (C1)", () => {
    const t = tool(z.record(z.string(), z.number()));
    expect(t.wrapsOutput).toBe(false);
    expect(t.listing.outputSchema).toEqual({
      type: "object",
      propertyNames: { type: "string" },
      additionalProperties: { type: "number" },
    });
  });
});

describe("annotations and title (C14)", () => {
  it("publishes title and annotations as given, with the title inside annotations too", () => {
    const t = defineTool({
      name: "delete_note",
      title: "Delete a note",
      description: "Deletes a note",
      input: z.object({ title: z.string().describe("Title") }),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      handler: () => "ok",
    });
    expect(t.title).toBe("Delete a note");
    expect(t.listing.title).toBe("Delete a note");
    expect(t.listing.annotations).toEqual({
      title: "Delete a note",
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(t.annotations).toEqual(t.listing.annotations);
  });

  it("publishes annotations without a title", () => {
    const t = defineTool({
      name: "list_notes",
      description: "Lists notes",
      input: noInput,
      annotations: { readOnlyHint: true },
      handler: () => "ok",
    });
    expect(t.listing.annotations).toEqual({ readOnlyHint: true });
    expect(t.listing).not.toHaveProperty("title");
  });

  it("publishes a title alone as the annotations' title", () => {
    const t = defineTool({ name: "t", title: "Nice name", description: "d", input: noInput, handler: () => "ok" });
    expect(t.listing.title).toBe("Nice name");
    expect(t.listing.annotations).toEqual({ title: "Nice name" });
  });

  it("does not share the caller's annotations object", () => {
    const annotations = { readOnlyHint: true };
    const t = defineTool({ name: "t", title: "T", description: "d", input: noInput, annotations, handler: () => "ok" });
    expect(annotations).toEqual({ readOnlyHint: true });
    expect(t.annotations).not.toBe(annotations);
  });
});

describe("shapeToolResult: object output (C1)", () => {
  const t = tool(z.object({ id: z.string(), tags: z.array(z.string()), total: z.number().default(0) }));

  it("returns structuredContent equal to the value and one text block of 2-space JSON", () => {
    const value = { id: "n1", tags: ["a", "b"], total: 2 };
    expect(shapeToolResult(t, value)).toEqual({
      ok: true,
      result: {
        content: [{ type: "text", text: '{\n  "id": "n1",\n  "tags": [\n    "a",\n    "b"\n  ],\n  "total": 2\n}' }],
        structuredContent: value,
      },
    });
  });

  it("writes compact JSON on request", () => {
    const r = shaped(t, { id: "n1", tags: [], total: 1 }, "compact");
    expect(r.content).toEqual([{ type: "text", text: '{"id":"n1","tags":[],"total":1}' }]);
  });

  it("fills defaults and drops keys the schema does not know, in both text and structure", () => {
    const r = shaped(t, { id: "n1", tags: [], secret: "s3cr3t" });
    expect(r.structuredContent).toEqual({ id: "n1", tags: [], total: 0 });
    expect(r.content).toEqual([{ type: "text", text: JSON.stringify({ id: "n1", tags: [], total: 0 }, null, 2) }]);
    expect(JSON.stringify(r)).not.toContain("s3cr3t");
  });

  it("has no isError and exactly one content block", () => {
    const r = shaped(t, { id: "n1", tags: [] });
    expect(r.isError).toBeUndefined();
    expect(r.content).toHaveLength(1);
  });
});

describe("shapeToolResult: wrapped output (C2)", () => {
  it("() => 3 gives {result: 3}", async () => {
    const t = defineTool({ name: "three", description: "Three", input: noInput, output: z.number(), handler: () => 3 });
    expect(shapeToolResult(t, await t.handler({}, ctx))).toEqual({
      ok: true,
      result: { content: [{ type: "text", text: "3" }], structuredContent: { result: 3 } },
    });
  });

  it.each([
    ["a string, as is", z.string(), "hello\nworld", "hello\nworld"],
    ["an empty string", z.string(), "", ""],
    ["a string that looks like JSON, as is", z.string(), '{"a":1}', '{"a":1}'],
    ["a number", z.number(), 2.5, "2.5"],
    ["zero", z.number(), 0, "0"],
    ["a boolean", z.boolean(), false, "false"],
    ["null", z.null(), null, "null"],
    ["an array, as 2-space JSON", z.array(z.number()), [1, 2], "[\n  1,\n  2\n]"],
    ["an empty array", z.array(z.number()), [], "[]"],
    ["a nullable object", z.object({ a: z.string() }).nullable(), { a: "x" }, '{\n  "a": "x"\n}'],
  ])("%s", (_label, output, value, text) => {
    expect(shapeToolResult(tool(output), value)).toEqual({
      ok: true,
      result: { content: [{ type: "text", text }], structuredContent: { result: value } },
    });
  });

  it("writes compact JSON for wrapped values on request", () => {
    expect(shaped(tool(z.array(z.number())), [1, 2], "compact").content).toEqual([{ type: "text", text: "[1,2]" }]);
  });

  it("publishes the parsed value (defaults applied)", () => {
    const t = tool(z.array(z.object({ a: z.number().default(1) })));
    expect(shaped(t, [{}]).structuredContent).toEqual({ result: [{ a: 1 }] });
  });
});

describe("shapeToolResult: output is checked (C3)", () => {
  it("an object that breaks the schema is a problem, not a result", () => {
    const t = tool(z.object({ items: z.array(z.object({ id: z.string() })) }), "list_items");
    expect(shapeToolResult(t, { items: [{ id: 3 }] })).toEqual({
      ok: false,
      problem:
        "output of tool list_items does not match its output schema: items[0].id: Invalid input: expected string, received number",
    });
  });

  it("a missing result is a problem", () => {
    const t = tool(z.object({ id: z.string() }), "get_it");
    expect(shapeToolResult(t, undefined)).toEqual({
      ok: false,
      problem:
        "output of tool get_it does not match its output schema: (result): Invalid input: expected object, received undefined",
    });
  });

  it("a wrapped value of the wrong type is a problem", () => {
    const t = tool(z.number(), "count_it");
    expect(shapeToolResult(t, "three")).toEqual({
      ok: false,
      problem:
        "output of tool count_it does not match its output schema: (result): Invalid input: expected number, received string",
    });
  });

  // Fails: when the output schema accepts undefined (optional, unknown), a handler returning nothing
  // passes the Zod check and is sent as `text: undefined` (not a valid text block) with
  // structuredContent `{result: undefined}` (JSON `{}`, breaking `required: ["result"]`) or none at all.
  it.each([
    ["z.string().optional()", z.string().optional()],
    ["z.unknown()", z.unknown()],
    ["z.object({...}).optional()", z.object({ a: z.string() }).optional()],
  ])("never sends an invalid result when %s output is undefined", (_label, output) => {
    const t = tool(output, "maybe");
    const r = shapeToolResult(t, undefined);
    if (r.ok) {
      for (const block of r.result.content) {
        if (block.type === "text") expect(typeof block.text).toBe("string");
      }
      const sent = JSON.parse(JSON.stringify(r.result));
      expect(sent).toHaveProperty("structuredContent");
      const validate = new Ajv({ strict: false }).compile(t.listing.outputSchema as AnySchema);
      expect(validate(sent.structuredContent), JSON.stringify(validate.errors)).toBe(true);
    }
  });

  it("lists every mismatch", () => {
    const t = tool(z.object({ a: z.string(), b: z.number().max(3) }), "two_bad");
    const r = shapeToolResult(t, { a: 1, b: 9 });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problem).toMatch(/^output of tool two_bad does not match its output schema: a: .+; b: .+$/);
  });
});

describe("shapeToolResult: full results (C4)", () => {
  const blocks: CallToolResult["content"] = [
    { type: "text", text: "Here is the chart" },
    { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
    { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
    { type: "resource_link", uri: "note://groceries", name: "groceries", mimeType: "text/plain" },
    { type: "resource", resource: { uri: "note://todo", mimeType: "text/plain", text: "buy milk" } },
    { type: "resource", resource: { uri: "file:///a.bin", mimeType: "application/octet-stream", blob: "AAEC" } },
  ];

  it("passes every content block through unchanged", () => {
    const t = tool(undefined);
    const r = shaped(t, fullResult({ content: blocks }));
    expect(r).toEqual({ content: blocks });
  });

  it("keeps isError and _meta of a full result", () => {
    const t = tool(undefined);
    const r = shaped(t, fullResult({ content: [{ type: "text", text: "no" }], isError: true, _meta: { k: 1 } }));
    expect(r).toEqual({ content: [{ type: "text", text: "no" }], isError: true, _meta: { k: 1 } });
  });

  it("checks its structuredContent against an object output schema", () => {
    const t = tool(z.object({ id: z.string() }), "chart");
    expect(shaped(t, fullResult({ content: blocks, structuredContent: { id: "c1" } }))).toEqual({
      content: blocks,
      structuredContent: { id: "c1" },
    });
    expect(shapeToolResult(t, fullResult({ content: blocks, structuredContent: { id: 1 } }))).toEqual({
      ok: false,
      problem:
        "output of tool chart does not match its output schema: id: Invalid input: expected string, received number",
    });
  });

  it("checks the result of a wrapped output schema", () => {
    const t = tool(z.number(), "count");
    expect(shaped(t, fullResult({ content: [], structuredContent: { result: 2 } }))).toEqual({
      content: [],
      structuredContent: { result: 2 },
    });
    expect(shapeToolResult(t, fullResult({ content: [], structuredContent: { result: "2" } })).ok).toBe(false);
    expect(shapeToolResult(t, fullResult({ content: [], structuredContent: {} })).ok).toBe(false);
  });

  it("may leave out structuredContent", () => {
    const t = tool(z.object({ id: z.string() }));
    expect(shaped(t, fullResult({ content: blocks }))).toEqual({ content: blocks });
  });

  // Fails: the full result's structuredContent is checked with Zod (which strips unknown keys) but
  // sent as it was, so it breaks the published outputSchema (additionalProperties: false).
  it("never sends structuredContent that breaks the published output schema", () => {
    const t = tool(z.object({ id: z.string() }), "chart");
    const r = shapeToolResult(t, fullResult({ content: [], structuredContent: { id: "c1", internal_token: "t0k" } }));
    if (r.ok) {
      const validate = new Ajv({ strict: true }).compile(t.listing.outputSchema as AnySchema);
      expect(validate(r.result.structuredContent), JSON.stringify(validate.errors)).toBe(true);
      expect(JSON.stringify(r.result)).not.toContain("t0k");
    }
  });

  it("is marked with a brand that is not sent", () => {
    const plain: CallToolResult = { content: [{ type: "text", text: "x" }] };
    expect(isFullResult(plain)).toBe(false);
    const full = fullResult(plain);
    expect(full).toBe(plain);
    expect(isFullResult(full)).toBe(true);
    expect(isFullResult(null)).toBe(false);
    expect(isFullResult("x")).toBe(false);
    expect(Object.keys(full)).toEqual(["content"]);
    expect(JSON.stringify(full)).toBe('{"content":[{"type":"text","text":"x"}]}');
    expect(isFullResult(shaped(tool(undefined), full))).toBe(false);
  });

  it("is not mistaken for a plain object output", () => {
    const t = tool(undefined);
    const plainLookalike = { content: [{ type: "text", text: "x" }] };
    expect(shaped(t, plainLookalike)).toEqual({
      content: [{ type: "text", text: JSON.stringify(plainLookalike, null, 2) }],
    });
  });
});

describe("shapeToolResult: no output schema", () => {
  const t = tool(undefined);

  it("sends a string as text", () => {
    expect(shapeToolResult(t, "Saved note 'todo'")).toEqual({
      ok: true,
      result: { content: [{ type: "text", text: "Saved note 'todo'" }] },
    });
  });

  it("sends an object as 2-space JSON text, with no structuredContent", () => {
    const r = shaped(t, { a: 1, b: [true] });
    expect(r).toEqual({ content: [{ type: "text", text: '{\n  "a": 1,\n  "b": [\n    true\n  ]\n}' }] });
    expect(r).not.toHaveProperty("structuredContent");
  });

  it("sends compact JSON on request", () => {
    expect(shaped(t, { a: 1 }, "compact")).toEqual({ content: [{ type: "text", text: '{"a":1}' }] });
  });

  it("sends numbers, booleans, null and arrays as JSON, and nothing as empty text", () => {
    expect(shaped(t, 3)).toEqual({ content: [{ type: "text", text: "3" }] });
    expect(shaped(t, true)).toEqual({ content: [{ type: "text", text: "true" }] });
    expect(shaped(t, null)).toEqual({ content: [{ type: "text", text: "null" }] });
    expect(shaped(t, [1], "compact")).toEqual({ content: [{ type: "text", text: "[1]" }] });
    expect(shaped(t, undefined)).toEqual({ content: [{ type: "text", text: "" }] });
  });
});

describe("shapeToolResult: batches (C11)", () => {
  const notFound = (id: string) => new NotFoundError(`No note '${id}'`);

  it("some failed: not an error, structured content and a summary", async () => {
    const batch = await runBatch(["a", "b", "c"], (id) => {
      if (id === "b") throw notFound(id);
      return { id };
    });
    const r = shaped(tool(undefined), batch);
    const structured = {
      succeeded_count: 2,
      failed_count: 1,
      succeeded: [{ id: "a" }, { id: "c" }],
      failed: [{ id: "b", reason: "not_found", message: "No note 'b'", retryable: false }],
    };
    expect(r).toEqual({
      content: [
        {
          type: "text",
          text: `2 of 3 items succeeded, 1 failed.\n- b: not_found: No note 'b'\n\n${JSON.stringify(structured, null, 2)}`,
        },
      ],
      structuredContent: structured,
      isError: false,
    });
  });

  it("all failed: isError with the same structured content and an error class", async () => {
    const batch = await runBatch(["x", "y"], (id) => {
      throw notFound(id);
    });
    const r = shaped(tool(undefined), batch, "compact");
    const structured = {
      succeeded_count: 0,
      failed_count: 2,
      succeeded: [],
      failed: [
        { id: "x", reason: "not_found", message: "No note 'x'", retryable: false },
        { id: "y", reason: "not_found", message: "No note 'y'", retryable: false },
      ],
    };
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toEqual(structured);
    expect(r._meta).toEqual({ [ERROR_META_KEY]: { kind: "tool", code: "not_found", retryable: false } });
    expect(r.content).toEqual([
      {
        type: "text",
        text: `All 2 items failed.\n- x: not_found: No note 'x'\n- y: not_found: No note 'y'\n\n${JSON.stringify(structured)}`,
      },
    ]);
  });

  it("none failed: not an error", () => {
    const c = new BatchCollector<string>();
    c.succeed("a");
    const r = shaped(tool(undefined), c.result());
    expect(r.isError).toBe(false);
    expect(r.structuredContent).toEqual({ succeeded_count: 1, failed_count: 0, succeeded: ["a"], failed: [] });
  });

  it("with a batch output schema: checked, and the parsed value is the structured content", () => {
    const output = z.object({
      succeeded_count: z.number(),
      failed_count: z.number(),
      succeeded: z.array(z.object({ id: z.string() })),
      failed: z.array(z.object({ id: z.string(), reason: z.string(), message: z.string(), retryable: z.boolean() })),
    });
    const t = tool(output, "archive_notes");
    const c = new BatchCollector<{ id: string }>();
    c.fail("n1", { reason: "archived", message: "already archived", retryable: false });
    c.fail("n2", { reason: "conflict", message: "locked", retryable: true });
    const r = shaped(t, c.result());
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toEqual({
      succeeded_count: 0,
      failed_count: 2,
      succeeded: [],
      failed: [
        { id: "n1", reason: "archived", message: "already archived", retryable: false },
        { id: "n2", reason: "conflict", message: "locked", retryable: true },
      ],
    });
    expect(r._meta).toEqual({ [ERROR_META_KEY]: { kind: "tool", code: "partial_failure", retryable: false } });

    const ok = new BatchCollector<{ id: string }>();
    ok.succeed({ id: "n3" });
    ok.fail("n4", { reason: "archived", message: "already archived", retryable: false });
    expect(shaped(t, ok.result()).isError).toBe(false);

    const bad = new BatchCollector<{ id: number }>();
    bad.succeed({ id: 5 });
    expect(shapeToolResult(t, bad.result()).ok).toBe(false);
  });

  it("a plain object shaped like a batch is not treated as one", () => {
    const lookalike = { succeeded_count: 0, failed_count: 1, succeeded: [], failed: [] };
    expect(shaped(tool(undefined), lookalike)).toEqual({
      content: [{ type: "text", text: JSON.stringify(lookalike, null, 2) }],
    });
  });
});

describe("type inference", () => {
  const input = z.object({
    query: z.string().describe("q"),
    limit: z.number().int().default(10).describe("l"),
    status: z.enum(["open", "closed"]).optional().describe("s"),
    when: z.iso
      .datetime()
      .transform((s) => new Date(s))
      .optional()
      .describe("w"),
  });
  const output = z.object({ items: z.array(z.string()), total: z.number().default(0) });

  it("handler args are z.output of the input: defaults make fields non-optional", () => {
    const t = defineTool({
      name: "typed",
      description: "Typed",
      input,
      output,
      handler: (args) => {
        expectTypeOf(args).toEqualTypeOf<z.output<typeof input>>();
        expectTypeOf(args.query).toEqualTypeOf<string>();
        expectTypeOf(args.limit).toEqualTypeOf<number>();
        expectTypeOf(args.status).toEqualTypeOf<"open" | "closed" | undefined>();
        expectTypeOf(args.when).toEqualTypeOf<Date | undefined>();
        return { items: [] };
      },
    });
    expectTypeOf(t.parseArguments).returns.toEqualTypeOf<ParseResult<z.output<typeof input>>>();
    expectTypeOf(t.handler).parameter(0).toEqualTypeOf<z.output<typeof input>>();
    expectTypeOf(t.handler).parameter(1).toEqualTypeOf<ToolContext>();
  });

  it("handler return is z.input of the output, or a FullResult", () => {
    expectTypeOf<ToolReturn<typeof output>>().toEqualTypeOf<z.input<typeof output> | FullResult>();
    expectTypeOf<ToolReturn<typeof output>>().toEqualTypeOf<
      { items: string[]; total?: number | undefined } | FullResult
    >();
    expectTypeOf<ToolReturn<z.ZodNumber>>().toEqualTypeOf<number | FullResult>();
    expectTypeOf<ToolReturn<undefined>>().toEqualTypeOf<unknown>();

    const t = defineTool({
      name: "typed",
      description: "Typed",
      input,
      output,
      handler: async () => fullResult({ content: [] }),
    });
    expectTypeOf(t.output).toEqualTypeOf<typeof output>();
    expectTypeOf(t.handler).returns.toEqualTypeOf<ToolReturn<typeof output> | Promise<ToolReturn<typeof output>>>();
  });

  it("rejects a handler that returns the wrong type", () => {
    const t = defineTool({
      name: "typed",
      description: "Typed",
      input,
      output: z.object({ n: z.number() }),
      // @ts-expect-error a string is not a number
      handler: () => ({ n: "x" }),
    });
    expect(t.name).toBe("typed");
    defineTool({
      name: "typed2",
      description: "Typed",
      input,
      output: z.number(),
      // @ts-expect-error a number tool cannot return a string
      handler: () => "3",
    });
  });

  it("a tool without output may return anything", () => {
    const t = defineTool({ name: "free", description: "Free", input, handler: () => new Map() });
    expectTypeOf(t.handler).returns.toEqualTypeOf<unknown>();
  });
});

describe("task mode (the tasks extension)", () => {
  const base = { description: "Runs long", input: noInput, handler: () => "done" };

  it('is "forbidden" unless the tool says otherwise, and not published in the listing', () => {
    const plain = defineTool({ name: "plain", ...base });
    expect(plain.task).toBe("forbidden");
    const bulk = defineTool({ name: "bulk", ...base, task: "optional" });
    expect(bulk.task).toBe("optional");
    expect(defineTool({ name: "import", ...base, task: "required" }).task).toBe("required");
    expect(bulk.listing).toEqual({ ...plain.listing, name: "bulk" });
  });

  it("refuses an unknown mode at definition time, saying which ones exist", () => {
    expect(() => defineTool({ name: "odd", ...base, task: "sometimes" as never })).toThrow(
      'Tool "odd": task must be "forbidden", "optional" or "required", or { mode, start } (got "sometimes"); leave it out for a tool that always answers in the call [C13]',
    );
    expect(() => defineTool({ name: "odd", ...base, task: { mode: "optional", start: "later" as never } })).toThrow(
      'Tool "odd": task.start must be "call" (the task is made before the handler runs) or "handler" (when it calls ctx.startTask()); got "later" [C13]',
    );
  });

  it("makes the task before the handler unless the tool starts it itself", () => {
    expect(defineTool({ name: "bulk", ...base, task: "optional" }).taskStart).toBe("call");
    const asks = defineTool({ name: "asks", ...base, task: { mode: "required", start: "handler" } });
    expect([asks.task, asks.taskStart]).toEqual(["required", "handler"]);
  });
});
