import { describe, expect, it } from "vitest";
import { checkDefinitions, type ToolDefinition } from "./definitions.js";

const good: ToolDefinition = {
  name: "get_note",
  description: "Return one note by its exact title, with its body",
  inputSchema: {
    type: "object",
    properties: { title: { type: "string", maxLength: 200, description: "Exact title" } },
    required: ["title"],
    additionalProperties: false,
  },
  outputSchema: { type: "object", properties: { body: { type: "string" } } },
  annotations: { readOnlyHint: true },
};

const messages = (tools: ToolDefinition[]) =>
  Object.fromEntries(
    [...checkDefinitions(tools)].map(([rule, list]) => [
      rule,
      list.map((f) => `${f.status} ${f.subject}: ${f.message}`),
    ]),
  );

describe("checkDefinitions", () => {
  it("finds nothing wrong with a bounded, closed, described, annotated tool", () => {
    expect(messages([good])).toEqual({});
  });

  it("names invalid and repeated tool names (C13)", () => {
    expect(messages([good, good, { ...good, name: "has space" }]).D1).toEqual([
      "fail get_note: name is published more than once",
      'fail has space: name "has space" does not match /^[A-Za-z0-9._-]{1,128}$/',
    ]);
  });

  it("finds unbounded strings, numbers, arrays and untyped values, at any depth (C5)", () => {
    const tool = {
      ...good,
      inputSchema: {
        type: "object",
        additionalProperties: false,
        properties: {
          q: { type: "string", description: "q" },
          n: { type: "integer", maximum: 5, description: "n" },
          tags: { type: "array", items: { type: "string", maxLength: 9 }, description: "t" },
          any: { description: "anything" },
          when: { type: "string", format: "date-time", description: "w" },
          mode: { enum: ["a", "b"], description: "m" },
        },
      },
    };
    expect(messages([tool]).D6).toEqual([
      "fail get_note: q is a string with no maxLength or enum",
      "warn get_note: n is a number with no minimum",
      "fail get_note: tags is an array with no maxItems",
      "fail get_note: any accepts any value (no type)",
    ]);
  });

  it("finds keywords that draft-07 and 2020-12 clients read differently (C5)", () => {
    const tool = {
      ...good,
      inputSchema: {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        additionalProperties: false,
        properties: {
          pair: { type: "array", prefixItems: [{ type: "string" }], maxItems: 2, description: "p" },
          other: { $ref: "https://example.com/s.json", description: "o" },
          node: { $ref: "#/definitions/Node", maxLength: 3, description: "n" },
        },
        definitions: { Node: { type: "string", maxLength: 3 } },
      },
    };
    expect(messages([tool]).D7).toEqual([
      'fail get_note: inputSchema: $schema "https://json-schema.org/draft/2020-12/schema" (strict clients of the other draft refuse it); /properties/pair/prefixItems: prefixItems is 2020-12 only (a draft-07 client ignores it); /properties/other/$ref: $ref "https://example.com/s.json" points outside the schema; /properties/node/$ref: $ref next to maxLength (draft-07 ignores them, 2020-12 applies them)',
    ]);
  });

  it("wants a readOnlyHint, and consistent hints (C14)", () => {
    expect(
      messages([
        { ...good, annotations: undefined },
        { ...good, name: "wipe", annotations: { readOnlyHint: true, destructiveHint: true } },
        { ...good, name: "save", annotations: { readOnlyHint: false } },
      ]).D8,
    ).toEqual([
      "fail get_note: no readOnlyHint: clients must assume it writes, and read-only modes cannot offer it",
      "fail wipe: readOnlyHint: true with destructiveHint: true",
      "warn save: writes but has no destructiveHint or idempotentHint (clients assume destructive, not idempotent)",
    ]);
  });

  it("wants object input schemas, closed objects, described properties and output schemas", () => {
    const found = messages([
      { name: "a", description: "short", inputSchema: { type: "string" } },
      {
        ...good,
        name: "b",
        inputSchema: { type: "object", properties: { x: { type: "boolean" } } },
        outputSchema: undefined,
      },
    ]);
    expect(found.D2).toEqual([
      'warn a: description is 5 chars ("short"); say what it does and when to use it (at least 20)',
    ]);
    expect(found.D4).toEqual(['fail a: inputSchema must be {"type": "object", …}, got {"type":"string"}']);
    expect(found.D3).toEqual(["fail b: no description on x"]);
    expect(found.D5).toEqual([
      "fail b: additionalProperties is not false at (root): a misspelled argument is silently ignored",
    ]);
    expect(found.D9).toEqual([
      "warn a: no outputSchema: results are text a model must parse",
      "warn b: no outputSchema: results are text a model must parse",
    ]);
  });
});
