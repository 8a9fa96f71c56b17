import { notesPack, SqliteNotesStore } from "@toolshed/notes";
import { createServer, StdioTransport } from "@toolshed/server";

// main.ts of your own stdio server. Stdout carries only protocol messages; logs go to stderr.
const store = SqliteNotesStore.open("./notes.db");
const server = createServer({ name: "my-notes", version: "1.0.0", packs: [notesPack({ store, closeStore: true })] });
await server.connect(new StdioTransport());

// The client closing stdin ends the session: close the server, and with it the store.
process.stdin.once("end", () => void server.close());
