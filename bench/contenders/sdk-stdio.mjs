// Contender: the bare SDK over stdio (McpServer + StdioServerTransport), same tools and SQL.
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { sdkServer } from "./sdk-server.mjs";
import { argsOf, openNoteReader } from "./tools.mjs";

const args = argsOf();
const notes = openNoteReader(args.db);
const server = sdkServer(notes);
await server.connect(new StdioServerTransport());
