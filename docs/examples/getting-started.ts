import { NotFoundError } from "@toolshed/errors";
import { definePack, defineTool } from "@toolshed/schema";
import { connectInMemory, createServer } from "@toolshed/server";
import { z } from "zod";

const NOTES = new Map([
  ["groceries", "milk, eggs"],
  ["todo", "call the plumber"],
]);

const getNote = defineTool({
  name: "get_note",
  description: "Return one note by its exact title.",
  input: z.object({ title: z.string().min(1).describe("Exact title of the note, such as groceries") }),
  // An object schema: results go out as structuredContent plus the same value as JSON text.
  output: z.object({ title: z.string(), body: z.string(), words: z.number().int() }),
  annotations: { readOnlyHint: true },
  handler: ({ title }) => {
    const body = NOTES.get(title);
    if (body === undefined) {
      // A ToolError's message reaches the model: say what was wrong and what would work.
      throw new NotFoundError(`No note '${title}'. Known titles: ${[...NOTES.keys()].sort().join(", ")}`);
    }
    return { title, body, words: body.split(/\s+/).length };
  },
});

export const notes = definePack({ name: "notes", tools: [getNote] });
const server = createServer({ name: "my-notes", version: "1.0.0", packs: [notes] });

// A real SDK Client connected in memory: what a desktop client would see over stdio.
const client = await connectInMemory(server);

// structuredContent: { title: "groceries", body: "milk, eggs", words: 2 }
export const note = await client.callTool({ name: "get_note", arguments: { title: "groceries" } });

// isError: true, text: "Error executing tool get_note: No note 'nope'. Known titles: groceries, todo"
export const missing = await client.callTool({ name: "get_note", arguments: { title: "nope" } });

// isError: true, text: "Invalid arguments for tool get_note:\ntitle: is required (a string)"
export const forgot = await client.callTool({ name: "get_note", arguments: {} });

await client.close();
await server.close();
