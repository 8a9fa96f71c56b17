// Contender: FastMCP for TypeScript, HTTP stream transport, stateless, JSON answers.
import { FastMCP, UserError } from "fastmcp";
import { ADD, add, announce, argsOf, GET_NOTE, NOTE_MISSING, openNoteReader } from "./tools.mjs";

const args = argsOf();
const notes = openNoteReader(args.db);
const server = new FastMCP({ name: "fastmcp-bench", version: "1.0.0" });
server.addTool({
  name: ADD.name,
  description: ADD.description,
  parameters: ADD.input,
  execute: async (input) => JSON.stringify(add(input), null, 2),
});
server.addTool({
  name: GET_NOTE.name,
  description: GET_NOTE.description,
  parameters: GET_NOTE.input,
  execute: async ({ title }) => {
    const note = notes.get(title);
    if (!note) throw new UserError(NOTE_MISSING(title));
    return JSON.stringify(note, null, 2);
  },
});

if (args.transport === "stdio") {
  await server.start({ transportType: "stdio" });
} else {
  await server.start({
    transportType: "httpStream",
    httpStream: { port: Number(args.port), host: "127.0.0.1", stateless: true, enableJsonResponse: true },
  });
  announce(`http://127.0.0.1:${args.port}/mcp`);
  process.on("SIGTERM", () => process.exit(0));
}
