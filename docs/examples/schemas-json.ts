import { definePrompt, defineTool, jsonSchema } from "@toolshed/schema";

// A JSON Schema document: published exactly as written, checked with Ajv.
export const addContact = defineTool({
  name: "add_contact",
  description: "Adds a contact",
  input: jsonSchema<{ name: string; email?: string; phone?: string }>({
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties: {
      name: { type: "string", maxLength: 80, description: "Full name" },
      email: { type: "string", format: "email", description: "Email address" },
      phone: { type: "string", description: "Phone number" },
    },
    required: ["name"],
    anyOf: [{ required: ["email"] }, { required: ["phone"] }],
    additionalProperties: false,
  }),
  handler: (args) => `Added ${args.name}`, // args typed by jsonSchema<T>()
});

// [{ path: "", message: "needs one of these arguments: email, phone" },
//  { path: "emial", message: 'unknown argument; did you mean "email"? Valid arguments: name, email, phone' }]
export const missing = addContact.parseArguments({ name: "Ada", emial: "ada@example.com" });

// A prompt's arguments (and a resource template's variables) take a document too; they arrive as
// strings, so "40" is read as 40 for an integer. prompts/list shows city (required) and days.
export const planTrip = definePrompt({
  name: "plan_trip",
  description: "Plans a trip",
  args: jsonSchema<{ city: string; days?: number }>({
    type: "object",
    properties: {
      city: { type: "string", maxLength: 80, description: "Where to" },
      days: { type: "integer", minimum: 1, maximum: 14, description: "How many days, 1 to 14" },
    },
    required: ["city"],
    additionalProperties: false,
  }),
  render: ({ city, days }) => `Plan ${days ?? 3} days in ${city}.`,
});

// [{ path: "days", message: "must be at most 14 (got 40)" }]
export const tooLong = planTrip.parseArgs({ city: "Oslo", days: "40" });
