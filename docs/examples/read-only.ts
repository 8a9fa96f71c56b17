import { definePack, defineTool } from "@toolshed/schema";
import { connectInMemory, createLogger, createServer } from "@toolshed/server";
import { z } from "zod";

const listNotes = defineTool({
  name: "list_notes",
  title: "List notes",
  description: "List note titles.",
  input: z.object({}),
  output: z.array(z.string()),
  annotations: { readOnlyHint: true, openWorldHint: false },
  handler: () => ["groceries", "todo"],
});

const deleteNote = defineTool({
  name: "delete_note",
  description: "Delete a note by title.",
  input: z.object({ title: z.string().describe("Exact title") }),
  annotations: { destructiveHint: true, idempotentHint: true },
  handler: () => ({ deleted: true }),
});

const notes = definePack({ name: "notes", tools: [listNotes, deleteNote] });

// C14: annotations are published as given; a read-only server also enforces readOnlyHint.
const server = createServer({
  name: "notes",
  version: "1.0.0",
  packs: [notes],
  readOnly: true,
  logger: createLogger({ level: "silent" }),
});
const client = await connectInMemory(server);

// [{ name: "list_notes", annotations: { title: "List notes", readOnlyHint: true, openWorldHint: false } }]
export const listed = (await client.listTools()).tools.map(({ name, annotations }) => ({ name, annotations }));

// isError: true, code "permission_denied", text: "Error executing tool delete_note: this server is read-only;
//   delete_note changes data. Read-only tools: list_notes"
export const refused = await client.callTool({ name: "delete_note", arguments: { title: "todo" } });

await client.close();
await server.close();
