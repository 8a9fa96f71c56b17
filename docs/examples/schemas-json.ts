import { defineTool, jsonSchema } from "@toolshed/schema";

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
