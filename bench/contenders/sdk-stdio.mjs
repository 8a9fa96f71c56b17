// Contender: the bare SDK over stdio (McpServer + StdioServerTransport), same tools and SQL.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { ADD, add, argsOf, GET_NOTE, NOTE_MISSING, openNoteReader, structuredResult } from "./tools.mjs";

const args = argsOf();
const notes = openNoteReader(args.db);
const server = new McpServer({ name: "sdk-bench", version: "1.0.0" });
server.registerTool(
  ADD.name,
  { description: ADD.description, inputSchema: ADD.input, outputSchema: ADD.output },
  async (input) => structuredResult(add(input)),
);
server.registerTool(
  GET_NOTE.name,
  { description: GET_NOTE.description, inputSchema: GET_NOTE.input, outputSchema: GET_NOTE.output },
  async ({ title }) => {
    const note = notes.get(title);
    if (!note) return { isError: true, content: [{ type: "text", text: NOTE_MISSING(title) }] };
    return structuredResult(note);
  },
);
await server.connect(new StdioServerTransport());
