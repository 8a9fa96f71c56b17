import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { DefinitionError } from "./definition-error.js";
import { jsonSchema } from "./json-schema-input.js";
import { defineTool, shapeToolResult, type ToolDefinition } from "./tool.js";

// Tools whose schemas are JSON Schema documents, as a team holding OpenAPI or another framework's
// schemas writes them: published as written, validated with the same hints as Zod (C6).

const CONTACT = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: {
    address: {
      $anchor: "addressDef",
      type: "object",
      description: "A postal address",
      properties: {
        street: { type: "string", description: "Street and number" },
        city: { type: "string", description: "City", minLength: 1 },
      },
      required: ["city"],
      additionalProperties: false,
    },
  },
  properties: {
    name: { type: "string", description: "Full name", maxLength: 40 },
    address: { $ref: "#/$defs/address", description: "Where to send mail" },
    contactMethod: { type: "string", enum: ["phone", "email"], description: "How to reach them" },
    phone: { type: "string", description: "Phone number", pattern: "^\\+?[0-9 ]+$" },
    email: { type: "string", format: "email", description: "Email address" },
    age: { type: "integer", minimum: 0, maximum: 150, description: "Age in years" },
    vip: { type: "boolean", description: "Whether they get priority" },
    tags: { type: "array", items: { type: "string" }, maxItems: 3, description: "Labels" },
  },
  required: ["name"],
  allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
  if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else
  then: { required: ["phone"] },
  else: { required: ["email"] },
  additionalProperties: false,
} as const;

const contact = defineTool({
  name: "add_contact",
  description: "Adds a contact",
  input: CONTACT,
  handler: (args) => args,
});

function issues(tool: ToolDefinition, args: unknown, coerce = false): string[] {
  const r = tool.parseArguments(args, { coerce });
  if (r.success) throw new Error(`expected a failure, got ${JSON.stringify(r.data)}`);
  return r.issues.map((i) => `${i.path}: ${i.message}`);
}

describe("a JSON Schema input", () => {
  it("is published exactly as written: $schema, $defs, $ref, $anchor, allOf/anyOf, if/then/else kept", () => {
    expect(contact.listing.inputSchema).toEqual(CONTACT);
    expect(contact.listing.inputSchema).not.toBe(CONTACT);
    expect(contact.schemaKind).toBe("json-schema");
  });

  it("passes valid arguments through unchanged", () => {
    const args = { name: "Ada", email: "ada@example.com", address: { city: "London" } };
    expect(contact.parseArguments(args)).toEqual({ success: true, data: args });
  });

  it("says what is wrong and what would work, with paths into $ref'd parts", () => {
    expect(
      issues(contact, {
        name: "x".repeat(41),
        email: "not-an-email",
        age: 200,
        contactMethod: "fax",
        address: { city: "", zip: "1" },
        tags: ["a", "b", "c", "d"],
      }),
    ).toEqual([
      "name: must be at most 40 characters (got 41)",
      "address.zip: unknown key; valid keys: street, city",
      "address.city: must not be empty",
      'contactMethod: must be one of "phone", "email" (got "fax")',
      'email: must be an email address (got "not-an-email")',
      "age: must be at most 150 (got 200)",
      "tags: must have at most 3 items (got 4)",
    ]);
  });

  it("names the missing arguments, and which of several would do", () => {
    expect(issues(contact, {})).toEqual([
      ": needs one of these arguments: phone, email",
      "email: is required",
      "name: is required (a string)",
    ]);
    expect(issues(contact, { name: "Ada", contactMethod: "phone", email: "a@b.co" })).toEqual(["phone: is required"]);
  });

  it("suggests the argument an unknown one was meant to be", () => {
    expect(issues(contact, { name: "Ada", email: "a@b.co", emial: "x" })).toEqual([
      'emial: unknown argument; did you mean "email"? Valid arguments: name, address, contactMethod, phone, email, age, vip, tags',
    ]);
  });

  it("takes the slips models make when only one reading works (lax coercion)", () => {
    const r = contact.parseArguments({ Name: "Ada", email: "a@b.co", age: "42", vip: "TRUE", contactMethod: "EMAIL" });
    expect(r).toEqual({
      success: true,
      data: { name: "Ada", email: "a@b.co", age: 42, vip: true, contactMethod: "email" },
      coercions: [
        { path: "name", kind: "argument_name", from: "Name" },
        { path: "contactMethod", kind: "enum_case", from: "string" },
        { path: "age", kind: "number", from: "string" },
        { path: "vip", kind: "boolean", from: "string" },
      ],
    });
    expect(issues(contact, { name: "Ada", email: "a@b.co", age: "42" }, false)).toEqual([
      'age: must be an integer (got "42")',
    ]);
    expect(issues(contact, { name: "Ada", email: "a@b.co", age: "4.5" }, true)).toEqual([
      'age: must be an integer (got "4.5")',
    ]);
  });

  it("refuses text no store keeps intact", () => {
    expect(issues(contact, { name: "A\u0000da", email: "a@b.co" })).toEqual([
      "name: must not contain the NUL character (\\u0000, character 2); leave it out",
    ]);
  });

  it("says what a union wanted", () => {
    const t = defineTool({
      name: "pick",
      description: "Picks",
      input: {
        type: "object",
        properties: {
          id: { anyOf: [{ type: "string" }, { type: "integer" }], description: "Id" },
          shape: {
            description: "A shape",
            oneOf: [
              { type: "object", properties: { r: { type: "number", description: "Radius" } }, required: ["r"] },
              { type: "object", properties: { side: { type: "number", description: "Side" } }, required: ["side"] },
            ],
          },
        },
      },
      handler: () => "ok",
    });
    expect(issues(t, { id: true, shape: { r: "x" } })).toEqual([
      "id: must be a string or an integer (got true)",
      'shape: does not match any allowed form; closest: shape.r: must be a number (got "x")',
    ]);
    expect(issues(t, { shape: { r: 1, side: 2 } })).toEqual([
      "shape: matches more than one allowed form (forms 1 and 2); send a value that fits exactly one",
    ]);
  });

  it("answers a list of items that each miss every form with bounded hints, each about its own item (issue 58.1)", () => {
    const forms = () => ({
      type: "object",
      properties: {
        items: {
          type: "array",
          description: "Changes",
          items: {
            anyOf: [
              { type: "object", properties: { a: { type: "string", description: "A" } }, required: ["a", "b"] },
              { type: "object", properties: { c: { type: "number", description: "C" } }, required: ["c", "d"] },
              {
                type: "object",
                properties: { e: { type: "boolean", description: "E" } },
                required: ["e"],
                additionalProperties: false,
              },
            ],
          },
        },
      },
    });
    const t = defineTool({ name: "apply", description: "Applies", input: forms(), handler: () => "ok" });
    // Before, every item's hint quoted every other item's problems: 400 items answered about 340 KB.
    for (const count of [400, 6400]) {
      const args = { items: Array.from({ length: count }, () => ({})) };
      for (const coerce of [false, true]) {
        const got = issues(t, args, coerce);
        expect(got).toHaveLength(21);
        expect(got[0]).toBe(
          "items[0]: does not match any allowed form; closest: items[0].e: is required (true or false)",
        );
        got.slice(0, 20).forEach((line, i) => {
          expect(line).toBe(
            `items[${i}]: does not match any allowed form; closest: items[${i}].e: is required (true or false)`,
          );
        });
        expect(got[20]).toBe(`: … and ${count - 20} more problems; fix these first`);
      }
    }
    // The closest form's problems: the first three, the rest counted.
    const wide = defineTool({
      name: "wide",
      description: "Wide",
      input: {
        type: "object",
        properties: {
          x: {
            description: "X",
            anyOf: [
              { type: "object", required: ["p", "q", "r", "s", "t"] },
              { type: "object", required: ["u", "v", "w", "y", "z", "zz"] },
            ],
          },
        },
      },
      handler: () => "ok",
    });
    expect(issues(wide, { x: {} })).toEqual([
      "x: does not match any allowed form; closest: x.p: is required; x.q: is required; x.r: is required; and 2 more problems",
    ]);
  });

  it("reads a draft-07 document by its $schema", () => {
    const t = defineTool({
      name: "legacy",
      description: "Old schema",
      input: {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        definitions: { n: { type: "number", description: "A number" } },
        properties: { n: { $ref: "#/definitions/n" } },
        required: ["n"],
      },
      handler: () => "ok",
    });
    expect(issues(t, { n: "x" })).toEqual(['n: must be a number (got "x")']);
    expect(t.parseArguments({ n: 1 }).success).toBe(true);
  });

  it("types the handler's arguments with jsonSchema<T>()", () => {
    const t = defineTool({
      name: "typed",
      description: "Typed",
      input: jsonSchema<{ city: string; days?: number }>({
        type: "object",
        properties: {
          city: { type: "string", description: "City" },
          days: { type: "integer", description: "Days" },
        },
        required: ["city"],
      }),
      handler: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ city: string; days?: number }>();
        return args.city;
      },
    });
    expect(t.parseArguments({ city: "Oslo" })).toEqual({ success: true, data: { city: "Oslo" } });
    expectTypeOf(contact.handler).parameter(0).toEqualTypeOf<Record<string, unknown>>();
  });
});

describe("a JSON Schema definition that cannot work fails when it is made (C5, C13)", () => {
  const define = (input: unknown, output?: unknown) => () =>
    defineTool({
      name: "bad_tool",
      description: "Bad",
      input: input as never,
      output: output as never,
      handler: () => 1 as never,
    });

  it("is not a JSON Schema", () => {
    expect(define({ type: "object", properties: { a: { type: "strng", description: "A" } } })).toThrow(
      /^Tool "bad_tool": input schema: the document is not a valid JSON Schema 2020-12: schema is invalid: .*\[C5\]$/,
    );
    expect(define({ $schema: "http://json-schema.org/draft-04/schema#", type: "object" })).toThrow(
      'Tool "bad_tool": input schema: $schema "http://json-schema.org/draft-04/schema#" is not supported; use "https://json-schema.org/draft/2020-12/schema" (the default when $schema is left out) or "http://json-schema.org/draft-07/schema#" [C5]',
    );
  });

  it("is a raw shape of Zod schemas, as the SDK's McpServer takes", () => {
    expect(define({ query: z.string().describe("Query") })).toThrow(
      'Tool "bad_tool": input is an object of Zod schemas (a raw shape); wrap it in z.object({ … }) so that it is one Zod object [C5]',
    );
  });

  it("refers outside itself: nothing is fetched", () => {
    expect(
      define({ type: "object", properties: { p: { $ref: "https://example.com/profile.json", description: "P" } } }),
    ).toThrow(/only references inside the document resolve \(#\/\$defs\/…\), nothing is fetched \[C5\]$/);
  });

  it("does not describe an object, or leaves a property undescribed", () => {
    expect(define({ type: "string" })).toThrow(
      'Tool "bad_tool": input schema must describe an object ({ "type": "object", … }): arguments are always an object (got type "string") [C5]',
    );
    expect(define({ type: "object", properties: { a: { type: "string" } } })).toThrow(DefinitionError);
    expect(define({ type: "object", properties: { a: { type: "string" } } })).toThrow(
      'Tool "bad_tool": input property "a" has no description; add "description": "what it is and what values work" [C13]',
    );
  });
});

describe("a JSON Schema output (C1–C3)", () => {
  const withOutput = (output: unknown) =>
    defineTool({
      name: "out",
      description: "Out",
      input: { type: "object" },
      output: output as never,
      handler: () => 1 as never,
    });

  it("publishes an object schema as is and checks results against it", () => {
    const t = withOutput({
      type: "object",
      properties: { sum: { type: "number" } },
      required: ["sum"],
      additionalProperties: false,
    });
    expect(t.listing.outputSchema).toEqual({
      type: "object",
      properties: { sum: { type: "number" } },
      required: ["sum"],
      additionalProperties: false,
    });
    const ok = shapeToolResult(t, { sum: 5 });
    expect(ok.ok && ok.result.structuredContent).toEqual({ sum: 5 });
    expect(shapeToolResult(t, { sum: "5" })).toEqual({
      ok: false,
      problem: 'output of tool out does not match its output schema: sum: must be a number (got "5")',
    });
  });

  it("wraps a non-object result as {result} (C2)", () => {
    const t = withOutput({ type: "array", items: { type: "string" } });
    expect(t.listing.outputSchema).toEqual({
      type: "object",
      properties: { result: { type: "array", items: { type: "string" } } },
      required: ["result"],
    });
    const ok = shapeToolResult(t, ["a"]);
    expect(ok.ok && ok.result.structuredContent).toEqual({ result: ["a"] });
    expect(shapeToolResult(t, [1]).ok).toBe(false);
  });
});
