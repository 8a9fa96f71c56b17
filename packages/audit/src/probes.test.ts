import { describe, expect, it } from "vitest";
import { hostileStrings, invalidCases, validValue } from "./probes.js";

describe("generated arguments", () => {
  it("hostile strings are the same for the same seed, and differ for another", () => {
    const first = hostileStrings(42, 12);
    expect(first).toHaveLength(12);
    expect(hostileStrings(42, 12)).toEqual(first);
    expect(hostileStrings(43, 12)).not.toEqual(first);
  });

  it("invalid cases come from the schema: options, types, bounds, missing and extra arguments", () => {
    const schema = {
      type: "object",
      properties: {
        status: { type: "string", enum: ["open", "closed"] },
        limit: { type: "integer", minimum: 1, maximum: 50 },
        title: { type: "string", maxLength: 3 },
      },
      required: ["title"],
      additionalProperties: false,
    };
    expect(invalidCases(schema)).toEqual([
      {
        label: "status not one of its options",
        arg: "status",
        args: { title: "a", status: "toolshed-audit-not-an-option" },
      },
      { label: "status of the wrong type", arg: "status", args: { title: "a", status: 12345 } },
      { label: "limit of the wrong type", arg: "limit", args: { title: "a", limit: "not-a-number" } },
      { label: "limit above maximum 50", arg: "limit", args: { title: "a", limit: 51 } },
      { label: "limit below minimum 1", arg: "limit", args: { title: "a", limit: 0 } },
      { label: "title of the wrong type", arg: "title", args: { title: 12345 } },
      { label: "title longer than maxLength 3", arg: "title", args: { title: "xxxx" } },
      { label: "required title missing", arg: "title", args: {} },
      {
        label: "unknown argument toolshed_audit_unexpected",
        arg: "toolshed_audit_unexpected",
        args: { title: "a", toolshed_audit_unexpected: true },
        lenient: true,
      },
    ]);
  });

  it("valid values honour defaults, formats and minimum sizes", () => {
    expect(validValue({ type: "string", format: "date-time" }, {})).toBe("2024-01-01T00:00:00Z");
    expect(validValue({ type: "string", minLength: 3 }, {})).toBe("aaa");
    expect(validValue({ type: "integer", minimum: 5, default: 7 }, {})).toBe(7);
    expect(validValue({ type: "array", minItems: 2, items: { type: "boolean" } }, {})).toEqual([true, true]);
    expect(validValue({ $ref: "#/definitions/N" }, { N: { type: "number", minimum: 2 } })).toBe(2);
  });
});
