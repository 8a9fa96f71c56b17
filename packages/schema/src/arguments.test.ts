import { invalidArgumentsResult } from "@toolshed/errors";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { parseArguments, unknownKeyIssues } from "./arguments.js";
import { defineTool } from "./tool.js";

/** The seed's crm_search_accounts input: optional fields, a default, and a cross-field refine. */
const seedAccountsInput = z
  .object({
    query: z.string().min(2).describe("Name or keyword"),
    tier: z.enum(["startup", "growth", "enterprise"]).optional().describe("Only this tier"),
    min_arr: z.number().min(0).default(0).describe("Lowest ARR"),
    max_arr: z.number().min(0).optional().describe("Highest ARR"),
  })
  .refine((a) => a.max_arr === undefined || a.max_arr >= a.min_arr, {
    message: "must be greater than or equal to min_arr",
    path: ["max_arr"],
  });

const searchInput = z.object({
  query: z.string().min(2).max(200).describe("Text to search for"),
  limit: z.number().int().min(1).max(50).default(10).describe("How many results, 1-50"),
  status: z.enum(["open", "closed", "any"]).default("any").describe("Issue status"),
  kind: z.literal("issue").optional().describe("Only issues"),
  score: z.number().gt(0).lt(1).optional().describe("Minimum relevance, between 0 and 1 exclusive"),
  owner: z.string().min(1).optional().describe("Owner login"),
  tags: z
    .array(z.object({ name: z.string().describe("Tag name") }))
    .max(100)
    .optional()
    .describe("Tags to match"),
  email: z.email().optional().describe("Reporter email"),
  id: z.uuid().optional().describe("Issue UUID"),
  since: z.iso.datetime().optional().describe("Only after this time"),
  code: z
    .string()
    .regex(/^[A-Z]{3}$/)
    .optional()
    .describe("Three-letter project code"),
  page_size: z.number().multipleOf(5).optional().describe("Page size, a multiple of 5"),
  ref: z.union([z.string(), z.number()]).optional().describe("Issue number or key"),
});

const search = defineTool({
  name: "search_issues",
  description: "Search issues",
  input: searchInput,
  handler: () => "ok",
});

/** Parses and returns the issues, failing the test when the parse succeeds. */
function issuesOf(schema: z.ZodType, args: unknown) {
  const r = parseArguments(schema, args);
  if (r.success) throw new Error(`expected ${JSON.stringify(args)} to be rejected`);
  return r.issues;
}

function lines(args: unknown) {
  const r = search.parseArguments(args);
  if (r.success) throw new Error(`expected ${JSON.stringify(args)} to be rejected`);
  return r.issues.map((i) => `${i.path}: ${i.message}`);
}

describe("parseArguments: success", () => {
  it("returns the parsed data with defaults filled in", () => {
    expect(search.parseArguments({ query: "bug" })).toEqual({
      success: true,
      data: { query: "bug", limit: 10, status: "any" },
    });
  });

  it("accepts every valid field", () => {
    const args = {
      query: "crash",
      limit: 50,
      status: "open",
      kind: "issue",
      score: 0.5,
      owner: "ann",
      tags: [{ name: "p1" }],
      email: "ann@example.com",
      id: "123e4567-e89b-42d3-a456-426614174000",
      since: "2025-01-31T12:00:00Z",
      code: "ABC",
      page_size: 25,
      ref: 42,
    };
    expect(search.parseArguments(args)).toEqual({ success: true, data: args });
  });

  it("treats undefined and null arguments as {}", () => {
    const opt = z.object({ limit: z.number().default(5).describe("n") });
    expect(parseArguments(opt, undefined)).toEqual({ success: true, data: { limit: 5 } });
    expect(parseArguments(opt, null)).toEqual({ success: true, data: { limit: 5 } });
    expect(lines(undefined)).toEqual(["query: is required (a string)"]);
    expect(lines(null)).toEqual(["query: is required (a string)"]);
  });

  it("runs a refinement once for arguments that pass, and still phrases the hint of one that fails", () => {
    let runs = 0;
    const range = z.object({ from: z.number().describe("From"), to: z.number().describe("To") }).refine(
      (a) => {
        runs++;
        return a.to >= a.from;
      },
      { message: "must be at least from", path: ["to"] },
    );
    expect(parseArguments(range, { from: 1, to: 2 })).toEqual({ success: true, data: { from: 1, to: 2 } });
    expect(runs).toBe(1);
    expect(issuesOf(range, { from: 3, to: 2 }).map((i) => `${i.path}: ${i.message}`)).toEqual([
      "to: must be at least from",
    ]);
    // Hints in nested text are found without the well-formed strings around them getting in the way.
    expect(
      issuesOf(z.object({ notes: z.array(z.string().describe("Note")).describe("Notes") }), {
        notes: ["fine", "bad\u0000", "fine"],
      }).map((i) => i.path),
    ).toEqual(["notes[1]"]);
  });

  it("rejects arguments that are not an object", () => {
    expect(lines("bug")).toEqual([': must be an object (got "bug")']);
    expect(lines([1])).toEqual([": must be an object (got an array of 1 item)"]);
    expect(lines(7)).toEqual([": must be an object (got 7)"]);
  });
});

describe("parseArguments: null for an argument that may be left out", () => {
  it("null for an optional or defaulted argument counts as leaving it out: the default applies", () => {
    expect(search.parseArguments({ query: "bug", limit: null, status: null, owner: null, ref: null })).toEqual({
      success: true,
      data: { query: "bug", limit: 10, status: "any" },
    });
  });

  it("the seed's crm_search_accounts with tier: null runs as if tier were left out", () => {
    const accounts = seedAccountsInput;
    expect(parseArguments(accounts, { query: "acme", tier: null, min_arr: null, max_arr: null })).toEqual({
      success: true,
      data: { query: "acme", min_arr: 0 },
    });
    // Every other rule still holds for the arguments that were sent.
    expect(issuesOf(accounts, { query: "acme", tier: null, min_arr: 100, max_arr: 5 })).toEqual([
      { path: "max_arr", message: "must be greater than or equal to min_arr" },
    ]);
  });

  it("a nullable argument still receives null, optional or not", () => {
    const s = z.object({
      due: z.string().nullable().describe("Due date, or null for none"),
      note: z.string().nullish().describe("A note"),
      owner: z.string().nullable().default("me").describe("Owner"),
      either: z.union([z.number(), z.null()]).optional().describe("A number or null"),
      anything: z.unknown().optional().describe("Any value"),
    });
    expect(parseArguments(s, { due: null, note: null, owner: null, either: null, anything: null })).toEqual({
      success: true,
      data: { due: null, note: null, owner: null, either: null, anything: null },
    });
  });

  it("a required argument sent as null gets a hint that says it is required", () => {
    expect(lines({ query: null })).toEqual(["query: is required and must be a string (got null)"]);
    const s = z.object({
      status: z.enum(["open", "closed"]).describe("Status"),
      ref: z.union([z.string(), z.number()]).describe("Issue number or key"),
      own: z
        .string()
        .describe("Owner")
        .refine(() => true, "never"),
    });
    expect(issuesOf(s, { status: null, ref: null, own: null })).toEqual([
      { path: "status", message: 'is required and must be one of "open", "closed" (got null)' },
      { path: "ref", message: "is required and must be a string or a number (got null)" },
      { path: "own", message: "is required and must be a string (got null)" },
    ]);
    // A message the schema sets itself is kept as it is.
    const custom = z.object({ id: z.string({ error: "give the ticket id, such as T-1" }).describe("Ticket id") });
    expect(issuesOf(custom, { id: null })).toEqual([{ path: "id", message: "give the ticket id, such as T-1" }]);
  });

  it("the rule holds at every depth: nested objects, array items and record values", () => {
    const s = z.object({
      filters: z
        .object({ tag: z.string().optional().describe("Tag"), min: z.number().default(1).describe("Min") })
        .optional()
        .describe("Filters"),
      items: z
        .array(z.object({ id: z.string().describe("Id"), note: z.string().optional().describe("Note") }))
        .describe("Items"),
      byName: z
        .record(z.string(), z.object({ size: z.number().optional().describe("Size") }))
        .optional()
        .describe("By name"),
    });
    const args = { filters: { tag: null, min: null }, items: [{ id: "a", note: null }], byName: { x: { size: null } } };
    expect(parseArguments(s, args)).toEqual({
      success: true,
      data: { filters: { min: 1 }, items: [{ id: "a" }], byName: { x: {} } },
    });
    // The caller's value is not changed.
    expect(args.filters).toEqual({ tag: null, min: null });
    expect(issuesOf(s, { items: [{ id: null }] })).toEqual([
      { path: "items[0].id", message: "is required and must be a string (got null)" },
    ]);
    // An optional object sent as null is left out too; a null array item is not a property.
    expect(parseArguments(s, { filters: null, items: [] })).toEqual({ success: true, data: { items: [] } });
    expect(issuesOf(s, { items: [null] })).toEqual([{ path: "items[0]", message: "must be an object (got null)" }]);
  });

  it("unknown keys are still reported, null or not", () => {
    expect(lines({ query: "bug", qeury: null })).toEqual([
      'qeury: unknown argument; did you mean "query"? Valid arguments: query, limit, status, kind, score, owner, tags, email, id, since, code, page_size, ref',
    ]);
  });

  it("the published schema is unchanged: null is accepted, not advertised", () => {
    const tier = search.inputSchema.properties as Record<string, Record<string, unknown>>;
    expect(tier.status).toEqual({
      type: "string",
      enum: ["open", "closed", "any"],
      default: "any",
      description: "Issue status",
    });
  });
});

describe("parseArguments: hints (C6)", () => {
  it("wrong types", () => {
    expect(lines({ query: "bug", limit: 2.5 })).toEqual(["limit: must be an integer (got 2.5)"]);
    expect(lines({ query: "bug", limit: "ten" })).toEqual(['limit: must be a number (got "ten")']);
    expect(lines({ query: 1 })).toEqual(["query: must be a string (got 1)"]);
    expect(lines({ query: null })).toEqual(["query: is required and must be a string (got null)"]);
    expect(lines({ query: "bug", tags: "p1" })).toEqual(['tags: must be an array (got "p1")']);
    expect(lines({ query: "bug", tags: [1] })).toEqual(["tags[0]: must be an object (got 1)"]);
    expect(lines({ query: "bug", tags: [{ name: 5 }] })).toEqual(["tags[0].name: must be a string (got 5)"]);
  });

  it("missing required arguments", () => {
    expect(lines({})).toEqual(["query: is required (a string)"]);
    const all = z.object({
      q: z.string().describe("q"),
      n: z.number().describe("n"),
      o: z.object({ x: z.string().describe("x") }).describe("o"),
      arr: z.array(z.string()).describe("arr"),
      bo: z.boolean().describe("bo"),
    });
    expect(issuesOf(all, {})).toEqual([
      { path: "q", message: "is required (a string)" },
      { path: "n", message: "is required (a number)" },
      { path: "o", message: "is required (an object)" },
      { path: "arr", message: "is required (an array)" },
      { path: "bo", message: "is required (true or false)" },
    ]);
    expect(issuesOf(all, { q: "a", n: 1, o: {}, arr: [], bo: true })).toEqual([
      { path: "o.x", message: "is required (a string)" },
    ]);
  });

  it("enums and literals", () => {
    expect(lines({ query: "bug", status: "pending" })).toEqual([
      'status: must be one of "open", "closed", "any" (got "pending")',
    ]);
    expect(lines({ query: "bug", kind: "pr" })).toEqual(['kind: must be "issue" (got "pr")']);
  });

  it("number bounds, inclusive and exclusive", () => {
    expect(lines({ query: "bug", limit: 999 })).toEqual(["limit: must be at most 50 (got 999)"]);
    expect(lines({ query: "bug", limit: 0 })).toEqual(["limit: must be at least 1 (got 0)"]);
    expect(lines({ query: "bug", score: 0 })).toEqual(["score: must be greater than 0 (got 0)"]);
    expect(lines({ query: "bug", score: 1 })).toEqual(["score: must be less than 1 (got 1)"]);
    expect(search.parseArguments({ query: "bug", limit: 1 }).success).toBe(true);
    expect(search.parseArguments({ query: "bug", limit: 50 }).success).toBe(true);
  });

  it("string lengths", () => {
    expect(lines({ query: "a" })).toEqual(["query: must be at least 2 characters (got 1)"]);
    expect(lines({ query: "x".repeat(201) })).toEqual(["query: must be at most 200 characters (got 201)"]);
    expect(lines({ query: "bug", owner: "" })).toEqual(["owner: must not be empty"]);
  });

  it("array sizes", () => {
    const tags = Array.from({ length: 101 }, (_, i) => ({ name: `t${i}` }));
    expect(lines({ query: "bug", tags })).toEqual(["tags: must have at most 100 items (got 101)"]);
    expect(search.parseArguments({ query: "bug", tags: tags.slice(0, 100) }).success).toBe(true);
  });

  it("formats: email, uuid, regex, datetime", () => {
    expect(lines({ query: "bug", email: "ann" })).toEqual(['email: must be an email address (got "ann")']);
    expect(lines({ query: "bug", id: "42" })).toEqual(['id: must be a UUID (got "42")']);
    expect(lines({ query: "bug", code: "abc" })).toEqual(['code: must match the pattern /^[A-Z]{3}$/ (got "abc")']);
    expect(lines({ query: "bug", since: "yesterday" })).toEqual([
      'since: must be an ISO 8601 date-time such as 2025-01-31T12:00:00Z (got "yesterday")',
    ]);
  });

  it("multipleOf", () => {
    expect(lines({ query: "bug", page_size: 7 })).toEqual(["page_size: must be a multiple of 5 (got 7)"]);
  });

  it("unions of primitives", () => {
    expect(lines({ query: "bug", ref: true })).toEqual(["ref: must be a string or a number (got true)"]);
    expect(lines({ query: "bug", ref: [] })).toEqual(["ref: must be a string or a number (got an array of 0 items)"]);
  });

  it("reports every problem, one issue each, in a stable order", () => {
    expect(lines({ query: 1, limit: 999, status: "pending", lmit: 3 })).toEqual([
      'lmit: unknown argument; did you mean "limit"? Valid arguments: query, limit, status, kind, score, owner, tags, email, id, since, code, page_size, ref',
      "query: must be a string (got 1)",
      "limit: must be at most 50 (got 999)",
      'status: must be one of "open", "closed", "any" (got "pending")',
    ]);
  });

  it("truncates long strings in `got`", () => {
    const long = `${"p".repeat(60)}${"q".repeat(40)}`;
    expect(lines({ query: "bug", status: long })).toEqual([
      `status: must be one of "open", "closed", "any" (got "${"p".repeat(60)}…" (100 characters))`,
    ]);
  });

  it("custom messages set on the schema win, minus a repeated leading key", () => {
    const custom = z.object({
      limit: z.number().max(5, "limit is capped at 5").describe("n"),
      q: z.string({ error: "q needs text" }).describe("q"),
      r: z.string().min(3, { message: "give at least 3 letters" }).describe("r"),
    });
    expect(issuesOf(custom, { limit: 10, q: 3, r: "a" })).toEqual([
      { path: "limit", message: "is capped at 5" },
      { path: "q", message: "needs text" },
      { path: "r", message: "give at least 3 letters" },
    ]);
  });

  it("reads as the C6 tool error text once rendered by @toolshed/errors", () => {
    const r = search.parseArguments({ query: "bug", limit: 999, status: "pending" });
    if (r.success) throw new Error("expected a failure");
    const result = invalidArgumentsResult(search.name, r.issues);
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([
      {
        type: "text",
        text: 'Invalid arguments for tool search_issues:\nlimit: must be at most 50 (got 999)\nstatus: must be one of "open", "closed", "any" (got "pending")',
      },
    ]);
  });

  it("does not change the schema's own error map globally", () => {
    expect(z.string().safeParse(1).error?.issues[0]?.message).toBe("Invalid input: expected string, received number");
  });
});

describe("parseArguments: text that is not valid Unicode", () => {
  const schema = z.object({
    title: z.string().describe("Title"),
    tags: z.array(z.string()).optional().describe("Tags"),
    either: z.union([z.string(), z.number()]).optional().describe("A string or a number"),
  });

  it("a lone surrogate anywhere is a hint with its place; whole pairs (emoji) pass", () => {
    expect(parseArguments(schema, { title: "family 👩‍👩‍👧", tags: ["ok 😀"] }).success).toBe(true);
    const lone = parseArguments(schema, { title: "\udfffnote", tags: ["fine", "ab\ud83d"], either: "\ud800" });
    expect(lone).toEqual({
      success: false,
      issues: [
        {
          path: "title",
          message:
            "must be valid Unicode text: character 1 is a lone surrogate (half of an emoji or other pair); send the whole character or leave it out",
        },
        {
          path: "tags[1]",
          message:
            "must be valid Unicode text: character 3 is a lone surrogate (half of an emoji or other pair); send the whole character or leave it out",
        },
        {
          path: "either",
          message:
            "must be valid Unicode text: character 1 is a lone surrogate (half of an emoji or other pair); send the whole character or leave it out",
        },
      ],
    });
  });

  it("the NUL character is refused with a hint too (PostgreSQL cannot store it; one rule for every store)", () => {
    expect(parseArguments(schema, { title: "a\u0000b" })).toEqual({
      success: false,
      issues: [{ path: "title", message: "must not contain the NUL character (\\u0000, character 2); leave it out" }],
    });
  });

  it("is one C6 result like every other invalid argument", () => {
    const parsed = parseArguments(schema, { title: "\udc00" });
    expect(parsed.success).toBe(false);
    if (parsed.success) return;
    const result = invalidArgumentsResult("create_note", parsed.issues);
    expect(result.content[0]?.text).toMatch(
      /^Invalid arguments for tool create_note:\ntitle: must be valid Unicode text/,
    );
    expect(result._meta["toolshed.dev/error"]).toMatchObject({ kind: "validation", code: "invalid_arguments" });
  });
});

describe("parseArguments: unknown keys", () => {
  it("top level: suggests the closest argument and lists the valid ones", () => {
    expect(lines({ query: "bug", limt: 5 })).toEqual([
      'limt: unknown argument; did you mean "limit"? Valid arguments: query, limit, status, kind, score, owner, tags, email, id, since, code, page_size, ref',
    ]);
  });

  it("top level without a close match: only lists the valid ones", () => {
    const s = z.object({ limit: z.number().optional().describe("n"), query: z.string().optional().describe("q") });
    expect(issuesOf(s, { zzzzzz: 1 })).toEqual([
      { path: "zzzzzz", message: "unknown argument; valid arguments: limit, query" },
    ]);
  });

  it("a tool without arguments says it takes none", () => {
    expect(issuesOf(z.object({}), { a: 1 })).toEqual([
      { path: "a", message: "unknown argument; this takes no arguments" },
    ]);
  });

  it("nested objects and array items: the key's path and the valid keys", () => {
    expect(lines({ query: "bug", tags: [{ name: "a", x: 1 }] })).toEqual(["tags[0].x: unknown key; valid keys: name"]);
    const nested = z.object({
      filters: z.object({ tags: z.array(z.object({ name: z.string().describe("n") })).describe("t") }).describe("f"),
    });
    expect(issuesOf(nested, { filters: { tags: [{ name: "a" }, { nme: "b" }], extra: 2 } })).toEqual([
      { path: "filters.tags[1].nme", message: 'unknown key; did you mean "name"? Valid keys: name' },
      { path: "filters.extra", message: "unknown key; valid keys: tags" },
      { path: "filters.tags[1].name", message: "is required (a string)" },
    ]);
  });

  it("record values are checked too", () => {
    const rec = z.object({ r: z.record(z.string(), z.object({ a: z.string().describe("a") })).describe("r") });
    expect(issuesOf(rec, { r: { k: { a: "x", zz: 1 } } })).toEqual([
      { path: "r.k.zz", message: 'unknown key; did you mean "a"? Valid keys: a' },
    ]);
  });

  it("looks through optional, nullable, default and pipe wrappers", () => {
    const s = z.object({
      o: z
        .object({ a: z.string().describe("a") })
        .nullable()
        .optional()
        .describe("o"),
      d: z
        .object({ b: z.number().describe("b") })
        .default({ b: 1 })
        .describe("d"),
      p: z
        .object({ c: z.string().describe("c") })
        .transform((v) => v.c)
        .describe("p"),
    });
    expect(issuesOf(s, { o: { a: "x", y: 1 }, d: { b: 2, y: 1 }, p: { c: "z", y: 1 } })).toEqual([
      { path: "o.y", message: 'unknown key; did you mean "a"? Valid keys: a' },
      { path: "d.y", message: 'unknown key; did you mean "b"? Valid keys: b' },
      { path: "p.y", message: 'unknown key; did you mean "c"? Valid keys: c' },
    ]);
  });

  it("a loose object (catchall) accepts and keeps unknown keys", () => {
    const loose = z.looseObject({ a: z.string().describe("a") });
    expect(parseArguments(loose, { a: "x", b: 1 })).toEqual({ success: true, data: { a: "x", b: 1 } });
    const nested = z.object({ meta: z.looseObject({}).describe("m") });
    expect(parseArguments(nested, { meta: { any: "thing" } })).toEqual({
      success: true,
      data: { meta: { any: "thing" } },
    });
  });

  it("a strict object lets Zod report the unknown key once", () => {
    const s = z.object({ s: z.strictObject({ a: z.string().describe("a") }).describe("s") });
    expect(issuesOf(s, { s: { a: "x", b: 1 } })).toEqual([{ path: "s", message: 'unknown key "b"' }]);
  });

  it("unknownKeyIssues ignores values that are not objects and schemas it does not enter", () => {
    expect(unknownKeyIssues(z.object({ a: z.string() }), "x")).toEqual([]);
    expect(unknownKeyIssues(z.string(), { a: 1 })).toEqual([]);
    expect(unknownKeyIssues(z.union([z.object({ a: z.string() }), z.object({ b: z.string() })]), { c: 1 })).toEqual([]);
  });
});

describe("parseArguments: prototype keys", () => {
  afterEach(() => {
    // Undo any pollution so one failure cannot poison the other tests.
    delete (Object.prototype as Record<string, unknown>).polluted;
  });

  it("rejects __proto__ as an unknown argument without polluting Object.prototype", () => {
    const args = JSON.parse('{"query": "bug", "__proto__": {"polluted": "yes"}}');
    expect(lines(args)).toEqual([
      "__proto__: unknown argument; valid arguments: query, limit, status, kind, score, owner, tags, email, id, since, code, page_size, ref",
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty("polluted");
  });

  it("rejects a nested __proto__ key the same way", () => {
    const args = JSON.parse('{"query": "bug", "tags": [{"name": "a", "__proto__": {"polluted": 1}}]}');
    expect(lines(args)).toEqual(["tags[0].__proto__: unknown key; valid keys: name"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("rejects constructor and other Object.prototype names as unknown", () => {
    const s = z.object({ limit: z.number().optional().describe("n"), query: z.string().optional().describe("q") });
    expect(issuesOf(s, { constructor: 1 })).toEqual([
      { path: "constructor", message: "unknown argument; valid arguments: limit, query" },
    ]);
    expect(issuesOf(s, { toString: "x", hasOwnProperty: 1 })).toEqual([
      { path: "toString", message: "unknown argument; valid arguments: limit, query" },
      { path: "hasOwnProperty", message: "unknown argument; valid arguments: limit, query" },
    ]);
  });

  it("never hands a __proto__ key to the handler's data", () => {
    const loose = z.object({ a: z.string().describe("a") });
    const r = parseArguments(loose, JSON.parse('{"a": "x", "__proto__": {"polluted": 1}}'));
    expect(r.success).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("object-level refinements (C5)", () => {
  const range = z
    .object({
      min_arr: z.number().describe("Lower bound"),
      max_arr: z.number().describe("Upper bound"),
    })
    .refine((v) => v.max_arr >= v.min_arr, {
      message: "max_arr must be greater than or equal to min_arr",
      path: ["max_arr"],
    });
  const tool = defineTool({ name: "range_tool", description: "A range", input: range, handler: () => "ok" });

  it("reports the refinement at its path, without repeating the key", () => {
    expect(tool.parseArguments({ min_arr: 5, max_arr: 1 })).toEqual({
      success: false,
      issues: [{ path: "max_arr", message: "must be greater than or equal to min_arr" }],
    });
  });

  it("is enforced on every call, not only the first", () => {
    const handler = vi.fn();
    for (let i = 0; i < 3; i++) {
      const r = tool.parseArguments({ min_arr: 5, max_arr: 1 });
      if (r.success) handler(r.data);
      expect(r.success).toBe(false);
      expect(tool.parseArguments({ min_arr: 1, max_arr: 5 })).toEqual({
        success: true,
        data: { min_arr: 1, max_arr: 5 },
      });
    }
    expect(handler).not.toHaveBeenCalled();
  });

  it("applies when the refinement has no path, at the object itself", () => {
    const s = z
      .object({ a: z.number().describe("a"), b: z.number().describe("b") })
      .refine((v) => v.a < v.b, "a must be less than b");
    expect(issuesOf(s, { a: 5, b: 1 })).toEqual([{ path: "", message: "a must be less than b" }]);
  });

  it("superRefine can add several issues at several paths", () => {
    const s = z.object({ a: z.string().describe("a"), b: z.string().describe("b") }).superRefine((v, ctx) => {
      if (v.a === v.b) ctx.addIssue({ code: "custom", message: "b must differ from a", path: ["b"] });
      if (v.a.length > 3) ctx.addIssue({ code: "custom", message: "at most 3 letters", path: ["a"] });
    });
    expect(issuesOf(s, { a: "abcd", b: "abcd" })).toEqual([
      { path: "b", message: "must differ from a" },
      { path: "a", message: "at most 3 letters" },
    ]);
    expect(issuesOf(s, { a: "ab", b: "ab" })).toEqual([{ path: "b", message: "must differ from a" }]);
    expect(parseArguments(s, { a: "ab", b: "cd" })).toEqual({ success: true, data: { a: "ab", b: "cd" } });
  });

  it("refinements on nested objects carry the nested path", () => {
    const s = z.object({
      window: z
        .object({ start: z.number().describe("s"), end: z.number().describe("e") })
        .refine((w) => w.end > w.start, { message: "end must be after start", path: ["end"] })
        .describe("w"),
    });
    expect(issuesOf(s, { window: { start: 2, end: 1 } })).toEqual([
      { path: "window.end", message: "must be after start" },
    ]);
  });

  it("runs alongside field errors of bounds and lengths; is skipped while a field has the wrong type or enum value", () => {
    const accounts = seedAccountsInput;
    const rule = { path: "max_arr", message: "must be greater than or equal to min_arr" };
    // Pydantic's model_validator(mode="after") waits for every field; here it is reported in the same answer.
    expect(issuesOf(accounts, { query: "a", min_arr: 100, max_arr: 10 })).toEqual([
      { path: "query", message: "must be at least 2 characters (got 1)" },
      rule,
    ]);
    expect(issuesOf(accounts, { query: "acme", min_arr: -5, max_arr: -10 })).toEqual([
      { path: "min_arr", message: "must be at least 0 (got -5)" },
      { path: "max_arr", message: "must be at least 0 (got -10)" },
      rule,
    ]);
    // A wrong type or enum value anywhere stops Zod before object-level rules: the rule comes on the next try.
    expect(issuesOf(accounts, { query: "acme", min_arr: "100", max_arr: 10 })).toEqual([
      { path: "min_arr", message: 'must be a number (got "100")' },
    ]);
    expect(issuesOf(accounts, { query: "acme", tier: "huge", min_arr: 100, max_arr: 10 })).toEqual([
      { path: "tier", message: 'must be one of "startup", "growth", "enterprise" (got "huge")' },
    ]);
  });

  it("unknown keys are reported even when the rest is valid", () => {
    expect(tool.parseArguments({ min_arr: 1, max_arr: 5, mid: 3 })).toEqual({
      success: false,
      issues: [{ path: "mid", message: "unknown argument; valid arguments: min_arr, max_arr" }],
    });
  });
});

describe("bounded answers", () => {
  it("lists at most 20 problems and counts the rest", () => {
    const schema = z.object({ a: z.string().describe("A") });
    const args: Record<string, unknown> = {};
    for (let i = 0; i < 5000; i++) args[`k${i}`] = i;
    const result = parseArguments(schema, args);
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(result.issues).toHaveLength(21);
    expect(result.issues[20]).toEqual({ path: "", message: "… and 4981 more problems; fix these first" });
  });
});

describe("bounded hints (issue 58.1)", () => {
  it("cut a path or a message the caller made long, saying how long it was", () => {
    const schema = z.object({ a: z.string().describe("A") });
    const key = "k".repeat(100_000);
    const result = parseArguments(schema, { a: "x", [key]: 1 });
    expect(result).toEqual({
      success: false,
      issues: [
        {
          path: `${"k".repeat(200)}… (100000 characters)`,
          message: "unknown argument; valid arguments: a",
        },
      ],
    });
  });

  it("quote the first three problems of a union's closest branch and count the rest", () => {
    const schema = z.object({
      x: z
        .union([
          z.object({ p: z.string(), q: z.string(), r: z.string(), s: z.string(), t: z.string() }),
          z.object({ u: z.string(), v: z.string(), w: z.string(), y: z.string(), z: z.string(), zz: z.string() }),
        ])
        .describe("X"),
    });
    const result = parseArguments(schema, { x: {} });
    expect(result).toEqual({
      success: false,
      issues: [
        {
          path: "x",
          message:
            "does not match any allowed form; closest: p: is required (a string); q: is required (a string); r: is required (a string); and 2 more problems",
        },
      ],
    });
  });
});

describe("long lists (issue 58.1: a refused call costs a few ms of CPU per KB)", () => {
  const item = z.union([z.object({ a: z.string().describe("A") }), z.object({ c: z.number().describe("C") })]);

  it("list the first 20 failing items of a long list, say where checking stopped, and skip the items that pass", () => {
    const schema = z.object({ items: z.array(item).describe("Items") });
    const items = Array.from({ length: 5000 }, (_, i) => (i % 2 === 0 ? { a: "ok" } : {}));
    const result = parseArguments(schema, { items });
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(result.issues).toHaveLength(21);
    expect(result.issues.slice(0, 20).map((issue) => issue.path)).toEqual(
      Array.from({ length: 20 }, (_, i) => `items[${2 * i + 1}]`),
    );
    expect(result.issues[0]?.message).toBe("does not match any allowed form; closest: a: is required (a string)");
    expect(result.issues[20]).toEqual({
      path: "",
      message: "… and perhaps more problems (checking stopped at item 40 of the 5000 in items); fix these first",
    });
  });

  it("phrase a required property sent as null inside a long list's item at its full path", () => {
    const schema = z.object({ items: z.array(z.object({ a: z.string().describe("A") })).describe("Items") });
    const items = Array.from({ length: 300 }, () => ({ a: null }));
    const result = parseArguments(schema, { items });
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(result.issues[0]).toEqual({ path: "items[0].a", message: "is required and must be a string (got null)" });
  });

  it("leave a long list with few failures to the whole parse, its own refinement included", () => {
    const schema = z.object({
      items: z
        .array(item)
        .refine((list) => list.length % 2 === 0, "must hold an even number of items")
        .describe("Items"),
    });
    const items: unknown[] = Array.from({ length: 301 }, () => ({ c: 1 }));
    expect(parseArguments(schema, { items })).toEqual({
      success: false,
      issues: [{ path: "items", message: "must hold an even number of items" }],
    });
    items[7] = { c: "x" };
    const result = parseArguments(schema, { items });
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(result.issues.map((issue) => issue.path)).toEqual(["items[7]"]);
  });

  it("refuse a long list over its maximum by its length, and take a valid long list", () => {
    const bounded = z.object({ items: z.array(item).max(50).describe("Items") });
    const result = parseArguments(bounded, { items: Array.from({ length: 5000 }, () => ({})) });
    expect(result).toEqual({
      success: false,
      issues: [{ path: "items", message: "must have at most 50 items (got 5000)" }],
    });
    const open = z.object({ items: z.array(item).describe("Items") });
    const valid = parseArguments(open, { items: Array.from({ length: 5000 }, (_, i) => ({ c: i })) });
    expect(valid.success && valid.data.items[4999]).toEqual({ c: 4999 });
  });
});
