import { describe, expect, it } from "vitest";
import { z } from "zod";
import { checkInputDescriptions, checkName, checkText, checkTimeout, NAME_PATTERN } from "./checks.js";
import { DefinitionError } from "./definition-error.js";
import { definitionError } from "./definition-error.test-helper.js";
import { defineTool, type ToolConfig } from "./tool.js";

const base = {
  name: "get_note",
  description: "Reads a note by title",
  input: z.object({ title: z.string().describe("Note title") }),
  handler: () => "ok",
};

function toolError(overrides: Partial<ToolConfig<z.ZodObject, undefined>>): DefinitionError {
  return definitionError(() => defineTool({ ...base, ...overrides } as ToolConfig<z.ZodObject, undefined>));
}

describe("DefinitionError", () => {
  it("names the definition and the rule in its message", () => {
    const e = new DefinitionError('Tool "x"', "C13", "something is wrong");
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe("DefinitionError");
    expect(e.message).toBe('Tool "x": something is wrong [C13]');
    expect(e.definition).toBe('Tool "x"');
    expect(e.rule).toBe("C13");
  });
});

describe("tool names (C13)", () => {
  it.each(["a", "get_note", "crm.get-account", "A.b_C-9", "x".repeat(128)])("accepts %j", (name) => {
    expect(defineTool({ ...base, name }).name).toBe(name);
  });

  it.each([
    ["a space", "get note"],
    ["empty", ""],
    ["129 characters", "x".repeat(129)],
    ["unicode", "café"],
    ["a slash", "notes/get"],
    ["a colon", "notes:get"],
    ["a newline", "get_note\n"],
    ["emoji", "note📝"],
  ])("rejects %s", (_label, name) => {
    const e = toolError({ name });
    expect(e.rule).toBe("C13");
    expect(e.message).toBe(
      `Tool "${name}": name must match /^[A-Za-z0-9._-]{1,128}$/ (1-128 letters, digits, ".", "_" or "-"), got ${JSON.stringify(name)} [C13]`,
    );
  });

  it("rejects a name that is not a string", () => {
    const e = toolError({ name: 42 as unknown as string });
    expect(e.message).toBe(
      'Tool "42": name must match /^[A-Za-z0-9._-]{1,128}$/ (1-128 letters, digits, ".", "_" or "-"), got 42 [C13]',
    );
    expect(toolError({ name: undefined as unknown as string }).message).toMatch(/got undefined \[C13\]$/);
  });

  it("NAME_PATTERN is the contract's pattern", () => {
    expect(NAME_PATTERN.source).toBe("^[A-Za-z0-9._-]{1,128}$");
    expect(() => checkName("X", "ok")).not.toThrow();
    expect(() => checkName("X", "not ok")).toThrow(DefinitionError);
  });
});

describe("descriptions and titles (C13)", () => {
  it.each([
    ["missing", undefined],
    ["empty", ""],
    ["blank", "   \n\t"],
    ["not a string", 5],
  ])("rejects a %s description", (_label, description) => {
    const e = toolError({ description: description as string });
    expect(e.message).toBe(
      'Tool "get_note": description must be a non-empty string that tells the model what this is for [C13]',
    );
  });

  it("rejects a blank title but accepts none", () => {
    expect(toolError({ title: " " }).message).toBe(
      'Tool "get_note": title must be a non-empty string that tells the model what this is for [C13]',
    );
    expect(defineTool({ ...base }).title).toBeUndefined();
  });

  it("checkText accepts text with surrounding space", () => {
    expect(() => checkText("X", "description", "  fine  ")).not.toThrow();
  });
});

describe("input property descriptions (C13)", () => {
  const inputError = (input: z.ZodObject) => toolError({ input });
  const msg = (path: string) =>
    `Tool "get_note": input property "${path}" has no description; add .describe("what it is and what values work") [C13]`;

  it("a top-level property", () => {
    expect(inputError(z.object({ title: z.string().describe("t"), limit: z.number() })).message).toBe(msg("limit"));
  });

  it("a blank description counts as none", () => {
    expect(inputError(z.object({ title: z.string().describe("  ") })).message).toBe(msg("title"));
  });

  it("a nested property", () => {
    expect(inputError(z.object({ filter: z.object({ owner: z.string() }).describe("Filter") })).message).toBe(
      msg("filter.owner"),
    );
    expect(
      inputError(
        z.object({
          a: z.object({ b: z.object({ c: z.number() }).describe("b") }).describe("a"),
        }),
      ).message,
    ).toBe(msg("a.b.c"));
  });

  it("a property of array items", () => {
    expect(inputError(z.object({ tags: z.array(z.object({ name: z.string() })).describe("Tags") })).message).toBe(
      msg("tags[].name"),
    );
    expect(inputError(z.object({ grid: z.array(z.array(z.object({ v: z.number() }))).describe("Grid") })).message).toBe(
      msg("grid[][].v"),
    );
  });

  it("a property of an object inside an optional, nullable or union", () => {
    expect(inputError(z.object({ o: z.object({ x: z.string() }).optional().describe("o") })).message).toBe(msg("o.x"));
    expect(inputError(z.object({ o: z.object({ x: z.string() }).nullable().describe("o") })).message).toBe(msg("o.x"));
    expect(
      inputError(
        z.object({
          u: z.union([z.object({ a: z.string().describe("a") }), z.object({ b: z.string() })]).describe("u"),
        }),
      ).message,
    ).toBe(msg("u.b"));
  });

  it("accepts descriptions set with .describe or .meta, before or after optional/default/nullable", () => {
    const t = defineTool({
      ...base,
      input: z.object({
        a: z.string().describe("a").optional(),
        b: z.string().optional().describe("b"),
        c: z.string().describe("c").default("x"),
        d: z.string().describe("d").nullable(),
        e: z.string().meta({ description: "e" }),
        f: z.union([z.string(), z.number()]).describe("f"),
        g: z.enum(["x", "y"]).describe("g"),
      }),
    });
    expect(Object.keys(t.inputSchema.properties as object)).toEqual(["a", "b", "c", "d", "e", "f", "g"]);
  });

  it("checkInputDescriptions works on a plain JSON Schema", () => {
    expect(() =>
      checkInputDescriptions('Tool "t"', {
        type: "object",
        properties: { a: { type: "string", description: "a" }, b: { anyOf: [{ type: "string", description: "b" }] } },
      }),
    ).not.toThrow();
    expect(() => checkInputDescriptions('Tool "t"', { type: "object", properties: { a: { type: "string" } } })).toThrow(
      'Tool "t": input property "a" has no description; add .describe("what it is and what values work") [C13]',
    );
  });

  // Fails: checkInputDescriptions does not look into `additionalProperties`, so the properties of a
  // record's value objects are never checked ("every input property, at every depth").
  it("a property of a record's value objects", () => {
    const e = inputError(
      z.object({ by_id: z.record(z.string(), z.object({ owner: z.string() })).describe("Notes by id") }),
    );
    expect(e.rule).toBe("C13");
    expect(e.message).toMatch(/^Tool "get_note": input property "by_id[^"]*owner" has no description/);
  });

  // Fails: a recursive field is published as {$ref}, and the description sits on the referenced
  // definition, so a fully described recursive schema is rejected.
  it("accepts a recursive schema whose every property is described", () => {
    const Node: z.ZodType<{ name: string; children?: unknown[] }> = z.object({
      name: z.string().describe("Node name"),
      get children() {
        return z.array(Node).optional().describe("Child nodes");
      },
    });
    const t = defineTool({ ...base, input: z.object({ root: Node.describe("Root node") }) });
    expect(t.parseArguments({ root: { name: "a", children: [{ name: "b" }] } }).success).toBe(true);
  });
});

describe("timeoutMs (C13)", () => {
  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])("rejects %s", (timeoutMs) => {
    expect(toolError({ timeoutMs }).message).toBe(
      `Tool "get_note": timeoutMs must be a positive number of milliseconds, got ${String(timeoutMs)} [C13]`,
    );
  });

  it("rejects a string", () => {
    expect(toolError({ timeoutMs: "100" as unknown as number }).message).toBe(
      'Tool "get_note": timeoutMs must be a positive number of milliseconds, got 100 [C13]',
    );
  });

  it("accepts a positive number or none", () => {
    expect(defineTool({ ...base, timeoutMs: 1500 }).timeoutMs).toBe(1500);
    expect(defineTool({ ...base, timeoutMs: 0.5 }).timeoutMs).toBe(0.5);
    expect(defineTool({ ...base }).timeoutMs).toBeUndefined();
    expect(() => checkTimeout("X", undefined)).not.toThrow();
  });
});

describe("handler (C13)", () => {
  it("must be a function", () => {
    expect(toolError({ handler: "nope" as unknown as () => string }).message).toBe(
      'Tool "get_note": handler must be a function [C13]',
    );
  });
});

describe("check order", () => {
  it("reports the name before anything else", () => {
    expect(toolError({ name: "bad name", description: "" }).message).toMatch(/^Tool "bad name": name must match/);
  });
});
