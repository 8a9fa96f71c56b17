import { describe, expect, it } from "vitest";
import { z } from "zod";
import { describeValue, formatPath, hintErrorMap, toValidationIssues } from "./hints.js";

/** The hint messages Zod produces for `value` with the hint error map, path-free. */
function messages(schema: z.ZodType, value: unknown): string[] {
  const parsed = schema.safeParse(value, { error: hintErrorMap });
  if (parsed.success) throw new Error(`expected ${JSON.stringify(value)} to fail`);
  return parsed.error.issues.map((i) => i.message);
}

describe("describeValue", () => {
  it("renders primitives as JSON-ish text", () => {
    expect(describeValue(undefined)).toBe("nothing");
    expect(describeValue(null)).toBe("null");
    expect(describeValue("ten")).toBe('"ten"');
    expect(describeValue("")).toBe('""');
    expect(describeValue(2.5)).toBe("2.5");
    expect(describeValue(-0.5)).toBe("-0.5");
    expect(describeValue(Number.NaN)).toBe("NaN");
    expect(describeValue(Number.POSITIVE_INFINITY)).toBe("Infinity");
    expect(describeValue(true)).toBe("true");
    expect(describeValue(false)).toBe("false");
    expect(describeValue(10n)).toBe("10");
  });

  it("summarises arrays and objects instead of dumping them", () => {
    expect(describeValue([])).toBe("an array of 0 items");
    expect(describeValue([1])).toBe("an array of 1 item");
    expect(describeValue([1, 2, 3])).toBe("an array of 3 items");
    expect(describeValue({ secret: "x" })).toBe("an object");
    expect(describeValue(new Date(0))).toBe("an object");
    expect(describeValue(() => 1)).toBe("function");
    expect(describeValue(Symbol("s"))).toBe("symbol");
  });

  it("escapes quotes and newlines in strings", () => {
    expect(describeValue('say "hi"\n')).toBe('"say \\"hi\\"\\n"');
  });

  it("keeps strings of up to 60 characters whole", () => {
    const s = "a".repeat(60);
    expect(describeValue(s)).toBe(`"${s}"`);
  });

  it("truncates longer strings to 60 characters plus an ellipsis and says how long they were", () => {
    const s = `${"b".repeat(60)}TAIL`;
    expect(describeValue(s)).toBe(`"${"b".repeat(60)}…" (64 characters)`);
    expect(describeValue("c".repeat(5000))).toBe(`"${"c".repeat(60)}…" (5000 characters)`);
  });
});

describe("formatPath", () => {
  it("joins keys with dots and indexes with brackets", () => {
    expect(formatPath([])).toBe("");
    expect(formatPath(["limit"])).toBe("limit");
    expect(formatPath(["filters", "tags", 2])).toBe("filters.tags[2]");
    expect(formatPath(["tags", 0, "x"])).toBe("tags[0].x");
    expect(formatPath([0, "a"])).toBe("[0].a");
    expect(formatPath(["m", 1, 2])).toBe("m[1][2]");
  });
});

describe("toValidationIssues", () => {
  const issue = (path: PropertyKey[], message: string) => ({
    code: "custom" as const,
    path,
    message,
    input: undefined,
  });

  it("formats the path and keeps the message", () => {
    expect(toValidationIssues([issue(["a", "b", 1], "must be a string (got 1)")])).toEqual([
      { path: "a.b[1]", message: "must be a string (got 1)" },
    ]);
    expect(toValidationIssues([issue([], "whole object is wrong")])).toEqual([
      { path: "", message: "whole object is wrong" },
    ]);
  });

  it("drops a leading repeat of the last key from the message", () => {
    expect(toValidationIssues([issue(["max_arr"], "max_arr must be greater than or equal to min_arr")])).toEqual([
      { path: "max_arr", message: "must be greater than or equal to min_arr" },
    ]);
    expect(toValidationIssues([issue(["range", "end"], "end is before start")])).toEqual([
      { path: "range.end", message: "is before start" },
    ]);
  });

  it("only strips the key as a whole word at the start", () => {
    expect(toValidationIssues([issue(["max"], "max_arr must be big")])).toEqual([
      { path: "max", message: "max_arr must be big" },
    ]);
    expect(toValidationIssues([issue(["max"], "the max must be big")])).toEqual([
      { path: "max", message: "the max must be big" },
    ]);
    expect(toValidationIssues([issue(["max"], "max")])).toEqual([{ path: "max", message: "max" }]);
  });

  it("does not strip for an index as the last path element", () => {
    expect(toValidationIssues([issue(["tags", 0], "0 is not allowed")])).toEqual([
      { path: "tags[0]", message: "0 is not allowed" },
    ]);
  });
});

describe("hintErrorMap", () => {
  it("invalid_type: says what was expected and what was sent", () => {
    expect(messages(z.string(), 1)).toEqual(["must be a string (got 1)"]);
    expect(messages(z.number(), "ten")).toEqual(['must be a number (got "ten")']);
    expect(messages(z.number().int(), 2.5)).toEqual(["must be an integer (got 2.5)"]);
    expect(messages(z.int(), "3")).toEqual(['must be a number (got "3")']);
    expect(messages(z.int(), 1.5)).toEqual(["must be an integer (got 1.5)"]);
    expect(messages(z.boolean(), "yes")).toEqual(['must be true or false (got "yes")']);
    expect(messages(z.object({}), [1, 2])).toEqual(["must be an object (got an array of 2 items)"]);
    expect(messages(z.array(z.string()), "a")).toEqual(['must be an array (got "a")']);
    expect(messages(z.null(), 0)).toEqual(["must be null (got 0)"]);
    expect(messages(z.number(), null)).toEqual(["must be a number (got null)"]);
    expect(messages(z.number(), Number.NaN)).toEqual(["must be a number (got NaN)"]);
    expect(messages(z.record(z.string(), z.number()), "x")).toEqual(['must be an object (got "x")']);
  });

  it("invalid_type with nothing sent: is required, with the expected type", () => {
    expect(messages(z.string(), undefined)).toEqual(["is required (a string)"]);
    expect(messages(z.number(), undefined)).toEqual(["is required (a number)"]);
    expect(messages(z.number().int(), undefined)).toEqual(["is required (a number)"]);
    expect(messages(z.boolean(), undefined)).toEqual(["is required (true or false)"]);
    expect(messages(z.object({ a: z.string() }), undefined)).toEqual(["is required (an object)"]);
    expect(messages(z.array(z.number()), undefined)).toEqual(["is required (an array)"]);
  });

  it("invalid_value: enums list every option, literals the one value", () => {
    expect(messages(z.enum(["open", "closed", "any"]), "pending")).toEqual([
      'must be one of "open", "closed", "any" (got "pending")',
    ]);
    expect(messages(z.literal("issue"), "pr")).toEqual(['must be "issue" (got "pr")']);
    expect(messages(z.literal(3), 4)).toEqual(["must be 3 (got 4)"]);
    expect(messages(z.literal(true), false)).toEqual(["must be true (got false)"]);
    expect(messages(z.literal(["a", 1]), 2)).toEqual(['must be one of "a", 1 (got 2)']);
    expect(messages(z.enum({ Low: 1, High: 2 }), 3)).toEqual(["must be one of 1, 2 (got 3)"]);
  });

  it("too_big / too_small for numbers: inclusive and exclusive bounds", () => {
    expect(messages(z.number().max(50), 999)).toEqual(["must be at most 50 (got 999)"]);
    expect(messages(z.number().lte(50), 51)).toEqual(["must be at most 50 (got 51)"]);
    expect(messages(z.number().lt(50), 50)).toEqual(["must be less than 50 (got 50)"]);
    expect(messages(z.number().min(1), 0)).toEqual(["must be at least 1 (got 0)"]);
    expect(messages(z.number().gt(0), 0)).toEqual(["must be greater than 0 (got 0)"]);
    expect(messages(z.number().positive(), -2)).toEqual(["must be greater than 0 (got -2)"]);
    expect(messages(z.number().nonnegative(), -1)).toEqual(["must be at least 0 (got -1)"]);
    expect(messages(z.int().min(1).max(50), 51)).toEqual(["must be at most 50 (got 51)"]);
  });

  it("too_big / too_small for strings: counts characters", () => {
    expect(messages(z.string().min(2), "a")).toEqual(["must be at least 2 characters (got 1)"]);
    expect(messages(z.string().max(3), "abcd")).toEqual(["must be at most 3 characters (got 4)"]);
    expect(messages(z.string().max(1), "ab")).toEqual(["must be at most 1 character (got 2)"]);
    expect(messages(z.string().length(2), "abc")).toEqual(["must be at most 2 characters (got 3)"]);
    expect(messages(z.string().min(1), "")).toEqual(["must not be empty"]);
    expect(messages(z.string().nonempty(), "")).toEqual(["must not be empty"]);
  });

  it("too_big / too_small for arrays: counts items", () => {
    expect(
      messages(
        z.array(z.number()).max(100),
        Array.from({ length: 101 }, (_, i) => i),
      ),
    ).toEqual(["must have at most 100 items (got 101)"]);
    expect(messages(z.array(z.number()).min(1), [])).toEqual(["must have at least 1 item (got 0)"]);
    expect(messages(z.array(z.number()).min(2), [1])).toEqual(["must have at least 2 items (got 1)"]);
    expect(messages(z.array(z.number()).nonempty(), [])).toEqual(["must have at least 1 item (got 0)"]);
  });

  it("invalid_format: names the format with an example where one helps", () => {
    expect(messages(z.email(), "nope")).toEqual(['must be an email address (got "nope")']);
    expect(messages(z.uuid(), "x")).toEqual(['must be a UUID (got "x")']);
    expect(messages(z.url(), "nope")).toEqual(['must be a URL (got "nope")']);
    expect(messages(z.iso.datetime(), "yesterday")).toEqual([
      'must be an ISO 8601 date-time such as 2025-01-31T12:00:00Z (got "yesterday")',
    ]);
    expect(messages(z.iso.date(), "31/01/2025")).toEqual([
      'must be an ISO 8601 date such as 2025-01-31 (got "31/01/2025")',
    ]);
    expect(messages(z.iso.time(), "noon")).toEqual(['must be an ISO 8601 time such as 12:00:00 (got "noon")']);
    expect(messages(z.iso.duration(), "3 days")).toEqual(['must be an ISO 8601 duration such as P3D (got "3 days")']);
    expect(messages(z.ipv4(), "1.2.3")).toEqual(['must be an IPv4 address (got "1.2.3")']);
    expect(messages(z.ipv6(), "zz")).toEqual(['must be an IPv6 address (got "zz")']);
    expect(messages(z.string().regex(/^[A-Z]{3}$/), "abc")).toEqual([
      'must match the pattern /^[A-Z]{3}$/ (got "abc")',
    ]);
    expect(messages(z.string().startsWith("ab"), "xy")).toEqual(['must start with "ab" (got "xy")']);
    expect(messages(z.string().endsWith(".md"), "a.txt")).toEqual(['must end with ".md" (got "a.txt")']);
    expect(messages(z.string().includes("@"), "ab")).toEqual(['must contain "@" (got "ab")']);
  });

  it("invalid_format of an unnamed format falls back to 'a valid <format>'", () => {
    expect(messages(z.cuid(), "!")).toEqual(['must be a valid cuid (got "!")']);
  });

  it("not_multiple_of names the divisor", () => {
    expect(messages(z.number().multipleOf(5), 7)).toEqual(["must be a multiple of 5 (got 7)"]);
    expect(messages(z.number().step(0.5), 0.3)).toEqual(["must be a multiple of 0.5 (got 0.3)"]);
  });

  it("invalid_union of primitives lists the allowed types once each", () => {
    expect(messages(z.union([z.string(), z.number()]), true)).toEqual(["must be a string or a number (got true)"]);
    expect(messages(z.union([z.string(), z.number().int(), z.boolean()]), null)).toEqual([
      "must be a string or a number or true or false (got null)",
    ]);
  });

  it("invalid_union of other forms reports the closest branch", () => {
    expect(messages(z.union([z.literal("a"), z.literal(2)]), "c")).toEqual([
      'does not match any allowed form; closest: must be "a" (got "c")',
    ]);
    const objects = z.union([z.object({ a: z.string() }), z.object({ b: z.number(), c: z.number() })]);
    expect(messages(objects, { c: 1 })).toEqual([
      "does not match any allowed form; closest: a: is required (a string)",
    ]);
  });

  it("unrecognized_keys from a strict object lists the keys", () => {
    expect(messages(z.strictObject({ a: z.string() }), { a: "x", b: 1 })).toEqual(['unknown key "b"']);
    expect(messages(z.strictObject({}), { b: 1, c: 2 })).toEqual(['unknown keys "b", "c"']);
  });

  it("messages a schema sets itself win over the hint map", () => {
    expect(messages(z.number().max(5, "limit is capped at 5"), 10)).toEqual(["limit is capped at 5"]);
    expect(messages(z.string({ error: "q needs text" }), 3)).toEqual(["q needs text"]);
    expect(messages(z.string().min(3, { message: "give at least 3 letters" }), "a")).toEqual([
      "give at least 3 letters",
    ]);
  });

  it("custom refinements without a message get the fallback with the value", () => {
    expect(
      messages(
        z.string().refine((s) => s === "ok"),
        "bad",
      ),
    ).toEqual(['is invalid (got "bad")']);
  });
});
