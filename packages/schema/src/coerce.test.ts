import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseArguments } from "./arguments.js";
import { coerceArguments } from "./coerce.js";
import { defineTool } from "./tool.js";

const input = z.object({
  limit: z.int().min(1).max(50).default(10).describe("How many results, 1-50"),
  score: z.number().min(0).max(1).optional().describe("Minimum relevance"),
  open_only: z.boolean().optional().describe("Only open ones"),
  status: z.enum(["open", "closed", "any"]).default("any").describe("Status"),
  account_id: z.string().optional().describe("Account"),
  filter: z
    .object({ owner: z.string().describe("Owner"), max: z.number().optional().describe("Max") })
    .optional()
    .describe("Filter"),
  ids: z.array(z.int()).max(5).optional().describe("Ids"),
  weights: z.record(z.string(), z.number()).optional().describe("Weights"),
});

const tool = defineTool({ name: "find", description: "Find things", input, handler: () => "ok" });
const strict = defineTool({
  name: "find_strict",
  description: "Find things",
  input,
  coerce: false,
  handler: () => "ok",
});

function accepted(args: unknown) {
  const r = tool.parseArguments(args);
  if (!r.success) throw new Error(`rejected: ${JSON.stringify(r.issues)}`);
  return r;
}

function refused(args: unknown) {
  const r = tool.parseArguments(args);
  if (r.success) throw new Error(`accepted ${JSON.stringify(args)} as ${JSON.stringify(r.data)}`);
  return r.issues.map((i) => `${i.path}: ${i.message}`);
}

describe("lax coercion: the slips with one reading are taken", () => {
  it("numeric and boolean strings for number, integer and boolean fields", () => {
    const r = accepted({ limit: "5", score: "0.25", open_only: "true" });
    expect(r.data).toMatchObject({ limit: 5, score: 0.25, open_only: true });
    expect(r.coercions).toEqual([
      { path: "limit", kind: "number", from: "string" },
      { path: "score", kind: "number", from: "string" },
      { path: "open_only", kind: "boolean", from: "string" },
    ]);
    expect(accepted({ open_only: "False" }).data.open_only).toBe(false);
    expect(accepted({ score: "1e-1" }).data.score).toBe(0.1);
  });

  it("a JSON string holding an object or an array, coerced inside too", () => {
    const r = accepted({ filter: '{"owner":"ann","max":"3"}', ids: "[1, 2]" });
    expect(r.data.filter).toEqual({ owner: "ann", max: 3 });
    expect(r.data.ids).toEqual([1, 2]);
    expect(r.coercions).toEqual([
      { path: "filter", kind: "json", from: "string" },
      { path: "filter.max", kind: "number", from: "string" },
      { path: "ids", kind: "json", from: "string" },
    ]);
    expect(accepted({ ids: ["1", 2] }).data.ids).toEqual([1, 2]);
    expect(accepted({ weights: { a: "0.5" } }).data.weights).toEqual({ a: 0.5 });
  });

  it("an enum value in another case, and an argument name in another case or with other separators", () => {
    const r = accepted({ status: "Closed", accountId: "A-1" });
    expect(r.data).toMatchObject({ status: "closed", account_id: "A-1" });
    expect(r.coercions).toEqual([
      { path: "account_id", kind: "argument_name", from: "accountId" },
      { path: "status", kind: "enum_case", from: "string" },
    ]);
    expect(accepted({ "Account-ID": "A-2" }).data.account_id).toBe("A-2");
    expect(accepted({ filter: { Owner: "ann" } }).data.filter).toEqual({ owner: "ann" });
  });

  it("a call that is right as sent is not touched and reports nothing", () => {
    const r = accepted({ limit: 5, status: "open" });
    expect(r.coercions).toBeUndefined();
    expect(r.data).toEqual({ limit: 5, status: "open" });
  });
});

describe("lax coercion: never where it could change the meaning", () => {
  it("no rounding, no empty string or word as a number, no yes for true", () => {
    expect(refused({ limit: "5.5" })).toEqual(["limit: must be an integer (got 5.5)"]);
    expect(refused({ limit: 5.5 })).toEqual(["limit: must be an integer (got 5.5)"]);
    expect(refused({ limit: "" })).toEqual(['limit: must be a number (got "")']);
    expect(refused({ limit: " 5" })).toEqual(['limit: must be a number (got " 5")']);
    expect(refused({ limit: "0x10" })).toEqual(['limit: must be a number (got "0x10")']);
    expect(refused({ score: "Infinity" })).toEqual(['score: must be a number (got "Infinity")']);
    expect(refused({ open_only: "yes" })).toEqual(['open_only: must be true or false (got "yes")']);
    expect(refused({ open_only: "1" })).toEqual(['open_only: must be true or false (got "1")']);
    // 2^53 + 1 has no exact number.
    expect(refused({ ids: ["9007199254740993"] })).toEqual(['ids[0]: must be a number (got "9007199254740993")']);
  });

  it("a coerced value still meets every rule, and its hint names the value taken", () => {
    expect(refused({ limit: "999" })).toEqual(["limit: must be at most 50 (got 999)"]);
  });

  it("no coercion inside a union when two members could take the value", () => {
    const either = z.object({ v: z.union([z.number(), z.boolean()]).describe("A number or a flag") });
    expect(parseArguments(either, { v: "5" }, { coerce: true })).toMatchObject({ success: true, data: { v: 5 } });
    const ambiguous = z.object({
      v: z.union([z.number(), z.object({ n: z.number().describe("n") })]).describe("x"),
    });
    expect(parseArguments(ambiguous, { v: "5" }, { coerce: true })).toMatchObject({ success: true, data: { v: 5 } });
    const two = z.object({ v: z.union([z.int(), z.number().min(0)]).describe("Two numbers") });
    expect(parseArguments(two, { v: "5" }, { coerce: true }).success).toBe(false);
    const takesText = z.object({ v: z.union([z.number(), z.string()]).describe("Number or text") });
    expect(parseArguments(takesText, { v: "5" }, { coerce: true })).toMatchObject({ success: true, data: { v: "5" } });
  });

  it("an argument name is not taken when two declared names fold alike or the declared one was sent too", () => {
    const twins = z.object({
      account_id: z.string().optional().describe("a"),
      accountId: z.string().optional().describe("b"),
    });
    expect(parseArguments(twins, { AccountID: "x" }, { coerce: true }).success).toBe(false);
    expect(refused({ accountId: "A-1", account_id: "A-2" })).toEqual([
      'accountId: unknown argument; did you mean "account_id"? Valid arguments: limit, score, open_only, status, account_id, filter, ids, weights',
    ]);
  });

  it("an enum value that folds to two options, or to none, is refused", () => {
    const cased = z.object({ mode: z.enum(["fast", "Fast", "slow"]).describe("Mode") });
    expect(parseArguments(cased, { mode: "FAST" }, { coerce: true }).success).toBe(false);
    expect(refused({ status: "pending" })).toEqual(['status: must be one of "open", "closed", "any" (got "pending")']);
  });
});

describe("turning it off", () => {
  it("a tool with coerce: false, a call with { coerce: false }, and parseArguments by default refuse", () => {
    expect(strict.coerce).toBe(false);
    expect(strict.parseArguments({ limit: "5" }).success).toBe(false);
    expect(tool.parseArguments({ limit: "5" }, { coerce: false }).success).toBe(false);
    expect(parseArguments(input, { limit: "5" }).success).toBe(false);
    expect(parseArguments(input, { limit: "5" }, { coerce: true }).success).toBe(true);
  });

  it("coerce must be a boolean", () => {
    expect(() =>
      defineTool({ name: "x", description: "X", input, coerce: "yes" as unknown as boolean, handler: () => 1 }),
    ).toThrow(/coerce must be true or false/);
  });

  it("the published schema is the same either way", () => {
    expect(tool.inputSchema).toEqual(strict.inputSchema);
  });
});

describe("did-you-mean for argument names", () => {
  it("prefers the same name in another case or with other separators over a short edit distance", () => {
    const comment = z.object({
      id: z.string().describe("Ticket id"),
      body: z.string().describe("Comment"),
      idempotency_key: z.string().optional().describe("Retry key"),
    });
    const r = parseArguments(comment, { id: "T-1", body: "x", idempotencyKey: "k" });
    expect(r.success).toBe(false);
    expect(r.success ? [] : r.issues).toEqual([
      {
        path: "idempotencyKey",
        message: 'unknown argument; did you mean "idempotency_key"? Valid arguments: id, body, idempotency_key',
      },
    ]);
  });
});

describe("coerceArguments", () => {
  it("leaves values it cannot read alone and reports nothing", () => {
    expect(coerceArguments(input, { filter: "{not json", ids: "[1,", limit: null })).toEqual({
      value: { filter: "{not json", ids: "[1,", limit: null },
      coercions: [],
    });
  });
});
