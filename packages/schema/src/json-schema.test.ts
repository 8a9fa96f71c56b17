// Named exports: the default export of this CommonJS package is not constructable under NodeNext typing.
import { Ajv, type AnySchema } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DefinitionError } from "./definition-error.js";
import { isObjectSchema, type JsonSchema, toPortableJsonSchema, wrapResultSchema } from "./json-schema.js";
import { defineTool } from "./tool.js";

type Visit = (node: Record<string, unknown>, pointer: string) => void;

/** Visits every schema object (and every nested plain object) of a JSON document. */
function walk(node: unknown, visit: Visit, pointer = ""): void {
  if (Array.isArray(node)) {
    node.forEach((n, i) => {
      walk(n, visit, `${pointer}/${i}`);
    });
    return;
  }
  if (typeof node !== "object" || node === null) return;
  const obj = node as Record<string, unknown>;
  visit(obj, pointer);
  for (const [k, v] of Object.entries(obj)) {
    if (k === "default" || k === "const" || k === "enum" || k === "examples") continue;
    walk(v, visit, `${pointer}/${k}`);
  }
}

function keysEverywhere(schema: unknown): Set<string> {
  const keys = new Set<string>();
  walk(schema, (n) => {
    for (const k of Object.keys(n)) keys.add(k);
  });
  return keys;
}

/** Objects that declare properties but leave additional ones open. */
function openObjects(schema: unknown): string[] {
  const open: string[] = [];
  walk(schema, (n, pointer) => {
    if (n.type === "object" && n.properties !== undefined && n.additionalProperties !== false)
      open.push(pointer || "/");
  });
  return open;
}

const searchInput = z.object({
  query: z.string().min(2).max(200).describe("Text to search for"),
  limit: z.number().int().min(1).max(50).default(10).describe("How many results, 1-50"),
  status: z.enum(["open", "closed", "any"]).optional().describe("Issue status"),
  kind: z.literal("issue").describe("Only issues"),
  score: z.number().gt(0).lt(1).optional().meta({ description: "Minimum relevance, exclusive bounds" }),
  filters: z
    .object({
      labels: z.array(z.string().describe("A label")).max(5).optional().describe("Labels, at most 5"),
      assignee: z
        .object({ login: z.string().min(1).describe("Login name") })
        .optional()
        .describe("Assignee"),
    })
    .optional()
    .describe("Extra filters"),
  tags: z
    .array(z.object({ name: z.string().describe("Tag name"), weight: z.number().int().optional().describe("Weight") }))
    .min(1)
    .max(100)
    .optional()
    .describe("Tags to match"),
  email: z.email().optional().describe("Reporter email"),
  id: z.uuid().optional().describe("Issue id"),
  since: z.iso.datetime().optional().describe("Only after this time"),
  code: z
    .string()
    .regex(/^[A-Z]{3}$/)
    .optional()
    .describe("Three-letter project code"),
  page_size: z.number().multipleOf(5).optional().describe("Page size, a multiple of 5"),
  note: z.string().nullable().optional().describe("A note, or null"),
});

const search = defineTool({
  name: "search_issues",
  description: "Search issues by text and filters",
  input: searchInput,
  handler: () => "ok",
});

describe("published input schema (C5)", () => {
  it("has the right keywords for every field", () => {
    const s = search.inputSchema;
    expect(s.type).toBe("object");
    expect(s.required).toEqual(["query", "kind"]);
    expect(s.additionalProperties).toBe(false);
    const p = s.properties as Record<string, JsonSchema>;
    expect(Object.keys(p)).toEqual([
      "query",
      "limit",
      "status",
      "kind",
      "score",
      "filters",
      "tags",
      "email",
      "id",
      "since",
      "code",
      "page_size",
      "note",
    ]);
    expect(p.query).toEqual({ type: "string", minLength: 2, maxLength: 200, description: "Text to search for" });
    expect(p.limit).toEqual({
      type: "integer",
      minimum: 1,
      maximum: 50,
      default: 10,
      description: "How many results, 1-50",
    });
    expect(p.status).toEqual({ type: "string", enum: ["open", "closed", "any"], description: "Issue status" });
    expect(p.kind).toEqual({ type: "string", const: "issue", description: "Only issues" });
    expect(p.score).toEqual({
      type: "number",
      exclusiveMinimum: 0,
      exclusiveMaximum: 1,
      description: "Minimum relevance, exclusive bounds",
    });
    expect(p.filters).toEqual({
      type: "object",
      description: "Extra filters",
      properties: {
        labels: {
          type: "array",
          maxItems: 5,
          items: { type: "string", description: "A label" },
          description: "Labels, at most 5",
        },
        assignee: {
          type: "object",
          description: "Assignee",
          properties: { login: { type: "string", minLength: 1, description: "Login name" } },
          required: ["login"],
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    });
    expect(p.tags).toEqual({
      type: "array",
      minItems: 1,
      maxItems: 100,
      description: "Tags to match",
      items: {
        type: "object",
        properties: {
          name: { type: "string", description: "Tag name" },
          weight: { type: "integer", description: "Weight" },
        },
        required: ["name"],
        additionalProperties: false,
      },
    });
    expect(p.email).toMatchObject({ type: "string", format: "email", description: "Reporter email" });
    expect(p.id).toMatchObject({ type: "string", format: "uuid", description: "Issue id" });
    expect(p.since).toMatchObject({ type: "string", format: "date-time", description: "Only after this time" });
    expect(p.code).toEqual({ type: "string", pattern: "^[A-Z]{3}$", description: "Three-letter project code" });
    expect(p.page_size).toEqual({ type: "number", multipleOf: 5, description: "Page size, a multiple of 5" });
    expect(p.note).toEqual({ anyOf: [{ type: "string" }, { type: "null" }], description: "A note, or null" });
  });

  it("has no $schema key anywhere", () => {
    expect(search.inputSchema).not.toHaveProperty("$schema");
    expect(keysEverywhere(search.inputSchema).has("$schema")).toBe(false);
    expect(keysEverywhere(toPortableJsonSchema(z.object({ a: z.string() }), "output")).has("$schema")).toBe(false);
    expect(keysEverywhere(toPortableJsonSchema(z.number(), "output")).has("$schema")).toBe(false);
  });

  it("closes every object to unknown keys", () => {
    expect(openObjects(search.inputSchema)).toEqual([]);
    let closed = 0;
    walk(search.inputSchema, (n) => {
      if (n.additionalProperties === false) closed++;
    });
    expect(closed).toBe(4);
  });

  it("uses no keyword that draft-07 and 2020-12 read differently", () => {
    const keys = keysEverywhere(search.inputSchema);
    for (const k of ["prefixItems", "$defs", "$dynamicRef", "dependentRequired", "unevaluatedProperties", "$id"]) {
      expect(keys.has(k), k).toBe(false);
    }
    walk(search.inputSchema, (n, pointer) => {
      expect(Array.isArray(n.items), `tuple items at ${pointer}`).toBe(false);
      if ("exclusiveMinimum" in n) expect(typeof n.exclusiveMinimum, pointer).toBe("number");
      if ("exclusiveMaximum" in n) expect(typeof n.exclusiveMaximum, pointer).toBe("number");
    });
  });

  it("keeps a loose object open", () => {
    const t = defineTool({
      name: "loose_tool",
      description: "Takes extra keys",
      input: z.looseObject({ a: z.string().describe("a") }),
      handler: () => "ok",
    });
    expect(t.inputSchema).toEqual({
      type: "object",
      properties: { a: { type: "string", description: "a" } },
      required: ["a"],
      additionalProperties: {},
    });
    const nested = toPortableJsonSchema(
      z.object({ meta: z.looseObject({ k: z.string().describe("k") }).describe("m") }),
      "input",
    );
    expect(nested.additionalProperties).toBe(false);
    expect((nested.properties as Record<string, JsonSchema>).meta?.additionalProperties).toEqual({});
    expect(t.parseArguments({ a: "x", extra: 1 })).toEqual({ success: true, data: { a: "x", extra: 1 } });
  });

  it("keeps a catchall's schema and a record's value schema", () => {
    expect(toPortableJsonSchema(z.object({ a: z.string() }).catchall(z.number()), "input")).toEqual({
      type: "object",
      properties: { a: { type: "string" } },
      required: ["a"],
      additionalProperties: { type: "number" },
    });
    expect(toPortableJsonSchema(z.object({ r: z.record(z.string(), z.number()) }), "input")).toEqual({
      type: "object",
      properties: {
        r: { type: "object", propertyNames: { type: "string" }, additionalProperties: { type: "number" } },
      },
      required: ["r"],
      additionalProperties: false,
    });
  });

  it("closes an empty input object too", () => {
    expect(toPortableJsonSchema(z.object({}), "input")).toEqual({
      type: "object",
      properties: {},
      additionalProperties: false,
    });
  });

  it("publishes .meta() title and examples next to the description", () => {
    const s = toPortableJsonSchema(
      z.object({ a: z.string().meta({ description: "from meta", title: "A", examples: ["x"] }) }),
      "input",
    );
    expect((s.properties as Record<string, JsonSchema>).a).toEqual({
      type: "string",
      description: "from meta",
      title: "A",
      examples: ["x"],
    });
  });

  it("keeps instance data (default, const, enum, examples) verbatim, even keys that look like keywords", () => {
    const s = toPortableJsonSchema(
      z.object({
        opts: z
          .object({ format: z.string().describe("f"), items: z.array(z.number()).describe("i") })
          .default({ format: "jwt", items: [1, 2] })
          .describe("o"),
      }),
      "input",
    );
    const opts = (s.properties as Record<string, JsonSchema>).opts as JsonSchema;
    expect(opts.default).toEqual({ format: "jwt", items: [1, 2] });
    expect(Object.keys(opts.properties as object)).toEqual(["format", "items"]);
  });

  it("drops formats a validator may not know but keeps their pattern", () => {
    const s = toPortableJsonSchema(z.object({ c: z.cuid(), j: z.jwt(), h: z.string().lowercase() }), "input");
    const p = s.properties as Record<string, JsonSchema>;
    expect(p.c).toEqual({ type: "string", pattern: "^[cC][0-9a-z]{6,}$" });
    expect(p.j).toEqual({ type: "string" });
    expect(p.h).toEqual({ type: "string", pattern: "^[^A-Z]*$" });
    for (const f of ["email", "uuid", "date-time", "date", "duration", "ipv4", "ipv6", "uri", "hostname"]) {
      let seen = false;
      walk(
        toPortableJsonSchema(
          z.object({
            a: z.email(),
            b: z.uuid(),
            c: z.iso.datetime(),
            d: z.iso.date(),
            e: z.iso.duration(),
            f: z.ipv4(),
            g: z.ipv6(),
            h: z.url(),
            i: z.hostname(),
          }),
          "input",
        ),
        (n) => {
          if (n.format === f) seen = true;
        },
      );
      expect(seen, f).toBe(true);
    }
  });

  it("output schemas are not forced closed or open by Toolshed", () => {
    expect(toPortableJsonSchema(z.object({ a: z.string(), n: z.number().default(1) }), "output")).toEqual({
      type: "object",
      properties: { a: { type: "string" }, n: { type: "number", default: 1 } },
      required: ["a", "n"],
      additionalProperties: false,
    });
  });
});

describe("integer bounds (C5)", () => {
  const SAFE = String(Number.MAX_SAFE_INTEGER);

  it("drops the ±(2^53-1) bounds Zod gives every integer, in input and output, at any depth", () => {
    const schema = z.object({
      count: z.number().int().describe("A count"),
      page: z.int().min(1).describe("Page, from 1"),
      below: z.number().int().max(-5).describe("At most -5"),
      maybe: z.number().int().nullable().describe("A count or null"),
      many: z.array(z.number().int()).describe("Counts"),
      nested: z.object({ n: z.number().int().nonnegative().describe("N") }).describe("Nested"),
    });
    for (const io of ["input", "output"] as const) {
      const published = toPortableJsonSchema(schema, io);
      expect(JSON.stringify(published)).not.toContain(SAFE);
      const p = published.properties as Record<string, JsonSchema>;
      expect(p.count).toEqual({ type: "integer", description: "A count" });
      expect(p.page).toEqual({ type: "integer", minimum: 1, description: "Page, from 1" });
      expect(p.below).toEqual({ type: "integer", maximum: -5, description: "At most -5" });
      expect(p.maybe).toEqual({ anyOf: [{ type: "integer" }, { type: "null" }], description: "A count or null" });
      expect(p.many).toEqual({ type: "array", items: { type: "integer" }, description: "Counts" });
      expect(((p.nested as JsonSchema).properties as Record<string, JsonSchema>).n).toEqual({
        type: "integer",
        minimum: 0,
        description: "N",
      });
    }
    expect(toPortableJsonSchema(z.number().int(), "output")).toEqual({ type: "integer" });
  });

  it("keeps real bounds: int32, a number's bound of 2^53-1, and bounds an author wrote", () => {
    const p = toPortableJsonSchema(
      z.object({
        small: z.int32().describe("32-bit"),
        big: z.number().max(Number.MAX_SAFE_INTEGER).describe("A number"),
        limit: z.number().int().min(1).max(50).describe("1-50"),
      }),
      "input",
    ).properties as Record<string, JsonSchema>;
    expect(p.small).toEqual({ type: "integer", minimum: -2147483648, maximum: 2147483647, description: "32-bit" });
    expect(p.big).toEqual({ type: "number", maximum: Number.MAX_SAFE_INTEGER, description: "A number" });
    expect(p.limit).toEqual({ type: "integer", minimum: 1, maximum: 50, description: "1-50" });
  });

  it("still refuses what Zod refuses: an unsafe integer is invalid though the bound is not published", () => {
    const tool = defineTool({
      name: "count",
      description: "Counts",
      input: z.object({ n: z.number().int().describe("N") }),
      handler: ({ n }) => n,
    });
    expect(tool.parseArguments({ n: 2 ** 53 }).success).toBe(false);
    expect(tool.parseArguments({ n: 2 ** 52 }).success).toBe(true);
  });
});

describe("isObjectSchema and wrapResultSchema (C2)", () => {
  it("only type object counts as an object", () => {
    expect(isObjectSchema({ type: "object" })).toBe(true);
    expect(isObjectSchema({ type: "number" })).toBe(false);
    expect(isObjectSchema({ type: ["object", "null"] })).toBe(false);
    expect(isObjectSchema({ anyOf: [{ type: "object" }] })).toBe(false);
  });

  it("wraps as {result}", () => {
    expect(wrapResultSchema({ type: "number" })).toEqual({
      type: "object",
      properties: { result: { type: "number" } },
      required: ["result"],
    });
  });
});

describe("non-portable schemas fail at definition (C5)", () => {
  const define = (input: z.ZodObject, output?: z.ZodType) => () =>
    defineTool({ name: "bad_tool", description: "Bad", input, output, handler: () => undefined as never });

  it("a tuple in input", () => {
    const fn = define(z.object({ pair: z.tuple([z.string(), z.number()]).describe("A pair") }));
    expect(fn).toThrow(DefinitionError);
    expect(fn).toThrow(
      'Tool "bad_tool": input schema uses a tuple at /properties/pair, which draft-07 and 2020-12 read differently; use an object or z.array() [C5]',
    );
  });

  it("a tuple in output", () => {
    expect(define(z.object({}), z.tuple([z.string()]))).toThrow(
      'Tool "bad_tool": output schema uses a tuple at /, which draft-07 and 2020-12 read differently; use an object or z.array() [C5]',
    );
  });

  it("z.date() in input", () => {
    const fn = define(z.object({ when: z.date().describe("When") }));
    expect(fn).toThrow(DefinitionError);
    expect(fn).toThrow(
      'Tool "bad_tool": input schema cannot be expressed in JSON Schema (Date cannot be represented in JSON Schema); use JSON types: strings (z.iso.datetime() for dates), numbers, booleans, arrays, objects [C5]',
    );
  });

  it("bigint, map, set in input", () => {
    expect(define(z.object({ b: z.bigint().describe("b") }))).toThrow(
      /^Tool "bad_tool": input schema .*BigInt.*\[C5\]$/,
    );
    expect(define(z.object({ m: z.map(z.string(), z.number()).describe("m") }))).toThrow(
      /^Tool "bad_tool": input schema .*Map.*\[C5\]$/,
    );
    expect(define(z.object({ s: z.set(z.string()).describe("s") }))).toThrow(
      /^Tool "bad_tool": input schema .*Set.*\[C5\]$/,
    );
  });

  it("a transform or a date in output", () => {
    expect(define(z.object({}), z.object({ n: z.string().transform((s) => s.length) }))).toThrow(
      'Tool "bad_tool": output schema cannot be expressed in JSON Schema (Transforms cannot be represented in JSON Schema); use JSON types: strings (z.iso.datetime() for dates), numbers, booleans, arrays, objects [C5]',
    );
    expect(define(z.object({}), z.object({ d: z.date() }))).toThrow(/^Tool "bad_tool": output schema .*Date.*\[C5\]$/);
  });

  it("an input that is not a Zod object", () => {
    const fn = () =>
      defineTool({
        name: "bad_tool",
        description: "Bad",
        input: z.string() as unknown as z.ZodObject,
        handler: () => "x",
      });
    expect(fn).toThrow(
      'Tool "bad_tool": input must be a Zod object (z.object({ query: z.string().describe("…") })), a JSON Schema document ({ type: "object", properties: { … } }) or a Standard Schema with JSON Schema (ArkType, Valibot through toStandardJsonSchema) [C5]',
    );
    for (const input of ["query", ["query"], null, new Map()]) {
      expect(() =>
        defineTool({
          name: "bad_tool",
          description: "Bad",
          input: input as unknown as z.ZodObject,
          handler: () => "x",
        }),
      ).toThrow(/^Tool "bad_tool": input must be a Zod object .*\[C5\]$/);
    }
    expect(() =>
      defineTool({
        name: "bad_tool",
        description: "Bad",
        input: z.object({ a: z.string().describe("a") }).optional() as unknown as z.ZodObject,
        handler: () => "x",
      }),
    ).toThrow(/\[C5\]$/);
    expect(() =>
      defineTool({
        name: "bad_tool",
        description: "Bad",
        input: z.object({ a: z.string().describe("a") }).transform((v) => v) as unknown as z.ZodObject,
        handler: () => "x",
      }),
    ).toThrow(/\[C5\]$/);
  });

  it("the error carries the definition and the rule", () => {
    try {
      define(z.object({ when: z.date().describe("When") }))();
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(DefinitionError);
      expect(e).toMatchObject({ name: "DefinitionError", definition: 'Tool "bad_tool"', rule: "C5" });
    }
  });

  // A transform inside an input field is published as the input side (what the client sends);
  // the handler receives the transformed value. Zod's io: "input" makes this representable.
  it("a field transform in input is published as its input side and applied at parse", () => {
    const t = defineTool({
      name: "len_tool",
      description: "Length",
      input: z.object({
        s: z
          .string()
          .transform((x) => x.length)
          .describe("Text"),
      }),
      handler: (args) => args.s,
    });
    expect(t.inputSchema.properties).toEqual({ s: { type: "string", description: "Text" } });
    expect(t.parseArguments({ s: "abc" })).toEqual({ success: true, data: { s: 3 } });
    expect(t.parseArguments({ s: 3 })).toEqual({
      success: false,
      issues: [{ path: "s", message: "must be a string (got 3)" }],
    });
  });
});

// --- Portability: the same published schema means the same in draft-07 and 2020-12 (C5) ---

const FORMATS = {
  email: /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  "date-time": /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)$/,
};

function strictValidators(schema: JsonSchema) {
  const draft07 = new Ajv({ strict: true, allErrors: true, formats: FORMATS });
  const draft2020 = new Ajv2020({ strict: true, allErrors: true, formats: FORMATS });
  return {
    draft07: draft07.compile(schema as AnySchema),
    draft2020: draft2020.compile(schema as AnySchema),
  };
}

const rangeInput = z.object({
  min_arr: z.number().describe("Lower bound"),
  max_arr: z.number().describe("Upper bound"),
  window: z
    .object({ from: z.int().min(0).describe("Start"), to: z.int().max(1000).describe("End") })
    .describe("A window"),
  labels: z.record(z.string(), z.number()).optional().describe("Label weights"),
  meta: z
    .looseObject({ source: z.string().describe("Where it came from") })
    .optional()
    .describe("Free-form meta"),
  mode: z
    .union([z.literal("fast"), z.literal("slow")])
    .default("fast")
    .describe("Mode"),
});

const range = defineTool({ name: "range_tool", description: "A range", input: rangeInput, handler: () => "ok" });

const samples: Array<{ tool: typeof search | typeof range; args: unknown; valid: boolean }> = [
  { tool: search, args: { query: "bug", kind: "issue" }, valid: true },
  {
    tool: search,
    args: {
      query: "bug",
      kind: "issue",
      limit: 50,
      status: "closed",
      score: 0.5,
      filters: { labels: ["a"], assignee: { login: "ann" } },
      tags: [{ name: "p1", weight: 2 }],
      email: "ann@example.com",
      id: "123e4567-e89b-42d3-a456-426614174000",
      since: "2025-01-31T12:00:00Z",
      code: "ABC",
      page_size: 25,
      note: null,
    },
    valid: true,
  },
  { tool: search, args: { query: "bug" }, valid: false },
  { tool: search, args: { query: "b", kind: "issue" }, valid: false },
  { tool: search, args: { query: "bug", kind: "pr" }, valid: false },
  { tool: search, args: { query: "bug", kind: "issue", limit: 2.5 }, valid: false },
  { tool: search, args: { query: "bug", kind: "issue", limit: 51 }, valid: false },
  { tool: search, args: { query: "bug", kind: "issue", limit: 0 }, valid: false },
  { tool: search, args: { query: "bug", kind: "issue", score: 0 }, valid: false },
  { tool: search, args: { query: "bug", kind: "issue", score: 1 }, valid: false },
  { tool: search, args: { query: "bug", kind: "issue", status: "pending" }, valid: false },
  { tool: search, args: { query: "bug", kind: "issue", tags: [] }, valid: false },
  { tool: search, args: { query: "bug", kind: "issue", tags: [{ name: "a", x: 1 }] }, valid: false },
  { tool: search, args: { query: "bug", kind: "issue", filters: { assignee: {} } }, valid: false },
  {
    tool: search,
    args: { query: "bug", kind: "issue", filters: { labels: ["1", "2", "3", "4", "5", "6"] } },
    valid: false,
  },
  { tool: search, args: { query: "bug", kind: "issue", email: "nope" }, valid: false },
  { tool: search, args: { query: "bug", kind: "issue", id: "42" }, valid: false },
  { tool: search, args: { query: "bug", kind: "issue", since: "yesterday" }, valid: false },
  { tool: search, args: { query: "bug", kind: "issue", code: "abc" }, valid: false },
  { tool: search, args: { query: "bug", kind: "issue", page_size: 7 }, valid: false },
  { tool: search, args: { query: "bug", kind: "issue", limt: 5 }, valid: false },
  { tool: range, args: { min_arr: 1, max_arr: 2, window: { from: 0, to: 1000 } }, valid: true },
  {
    tool: range,
    args: { min_arr: 1, max_arr: 2, window: { from: 0, to: 1 }, labels: { a: 1 }, meta: { source: "x", extra: true } },
    valid: true,
  },
  { tool: range, args: { min_arr: 1, max_arr: 2, window: { from: -1, to: 1 } }, valid: false },
  { tool: range, args: { min_arr: 1, max_arr: 2, window: { from: 0, to: 1001 } }, valid: false },
  { tool: range, args: { min_arr: 1, max_arr: 2, window: { from: 0, to: 1, x: 1 } }, valid: false },
  { tool: range, args: { min_arr: 1, max_arr: 2, window: { from: 0, to: 1 }, labels: { a: "1" } }, valid: false },
  { tool: range, args: { min_arr: 1, max_arr: 2, window: { from: 0, to: 1 }, mode: "medium" }, valid: false },
  { tool: range, args: { min_arr: 1, max_arr: 2, window: { from: 0, to: 1 }, meta: {} }, valid: false },
];

describe("portability with strict Ajv (C5)", () => {
  it.each([search, range])("$name compiles in draft-07 and 2020-12 strict mode", (tool) => {
    expect(() => strictValidators(tool.inputSchema)).not.toThrow();
  });

  it.each(samples.map((s, i) => ({ ...s, i, name: s.tool.name })))(
    "sample $i of $name: draft-07, 2020-12 and Zod agree (valid: $valid)",
    ({ tool, args, valid }) => {
      const v = strictValidators(tool.inputSchema);
      expect(v.draft07(args), JSON.stringify(v.draft07.errors)).toBe(valid);
      expect(v.draft2020(args), JSON.stringify(v.draft2020.errors)).toBe(valid);
      // The schema describes arguments as sent; lax coercion (on by default) may take more.
      expect(tool.parseArguments(args, { coerce: false }).success).toBe(valid);
    },
  );

  it("output schemas, object and wrapped, compile and validate the same", () => {
    const obj = defineTool({
      name: "obj_out",
      description: "Object out",
      input: z.object({}),
      output: z.object({ id: z.string(), count: z.int().min(0), tags: z.array(z.string()) }),
      handler: () => ({ id: "a", count: 1, tags: [] }),
    });
    const num = defineTool({
      name: "num_out",
      description: "Number out",
      input: z.object({}),
      output: z.number().min(0),
      handler: () => 3,
    });
    for (const [tool, good, bad] of [
      [obj, { id: "a", count: 1, tags: ["x"] }, { id: "a", count: -1, tags: [] }],
      [num, { result: 3 }, { result: -3 }],
    ] as const) {
      const schema = tool.outputSchema as JsonSchema;
      const v = strictValidators(schema);
      expect(v.draft07(good)).toBe(true);
      expect(v.draft2020(good)).toBe(true);
      expect(v.draft07(bad)).toBe(false);
      expect(v.draft2020(bad)).toBe(false);
    }
  });

  it("a recursive schema uses references both drafts resolve", () => {
    const Node: z.ZodType<{ name: string; children?: unknown[] }> = z.object({
      name: z.string(),
      get children() {
        return z.array(Node).optional();
      },
    });
    const schema = toPortableJsonSchema(z.object({ root: Node }), "input");
    const v = strictValidators(schema);
    const good = { root: { name: "a", children: [{ name: "b", children: [] }] } };
    const bad = { root: { name: "a", children: [{ name: 1 }] } };
    expect([v.draft07(good), v.draft2020(good)]).toEqual([true, true]);
    expect([v.draft07(bad), v.draft2020(bad)]).toEqual([false, false]);
  });

  // Fails: a union of primitive types is published as `type: ["string", "number"]`, which strict Ajv
  // (strictTypes) refuses to compile without `allowUnionTypes`. C5 promises strict clients accept it.
  it("a union of primitives compiles in strict mode", () => {
    const t = defineTool({
      name: "union_tool",
      description: "Union",
      input: z.object({ ref: z.union([z.string(), z.number()]).describe("Issue number or key") }),
      handler: () => "ok",
    });
    expect(() => strictValidators(t.inputSchema)).not.toThrow();
  });
});
