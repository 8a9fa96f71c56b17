// The bare SDK contenders' server: McpServer.registerTool with the shared schemas and SQL.
// Its own module, so contenders that do not use McpServer do not load it at start-up.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ADD, add, GET_NOTE, NOTE_MISSING, structuredResult } from "./tools.mjs";

/** A new McpServer serving `add` and `get_note` from `notes` (an openNoteReader). */
export function sdkServer(notes) {
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
  return server;
}
