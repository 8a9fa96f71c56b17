import { homedir } from "node:os";
import { join } from "node:path";
import { notesPack, SqliteNotesStore } from "@toolshed/notes";
import { createServer, StdioTransport } from "@toolshed/server";

// main.ts of your own stdio server. Stdout carries only protocol messages; logs go to stderr.
// An absolute path: a desktop client starts the server in a folder of its own choosing (often `/`),
// where a relative path such as ./notes.db would land, or fail. The folder is created if missing.
const store = SqliteNotesStore.open(join(homedir(), ".my-notes", "notes.db"));
const server = createServer({ name: "my-notes", version: "1.0.0", packs: [notesPack({ store, closeStore: true })] });
await server.connect(new StdioTransport());

// The client closing stdin ends the session: close the server, and with it the store.
process.stdin.once("end", () => void server.close());
