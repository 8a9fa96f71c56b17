import { notesPack, SqliteNotesStore, seedDemo } from "@toolshed/notes";
import { connectInMemory, createServer } from "@toolshed/server";

// A file path keeps notes between runs (created and upgraded in place); ":memory:" does not.
const store = SqliteNotesStore.open(":memory:");
await seedDemo(store); // a few dozen demo notes; running it again adds nothing

const server = createServer({ name: "my-notes", version: "1.0.0", packs: [notesPack({ store })] });
const client = await connectInMemory(server); // or serve it over stdio or HTTP

// structuredContent: { title: "groceries", body: "milk, eggs", words: 2 }
export const note = await client.callTool({ name: "get_note", arguments: { title: "groceries" } });

// isError, text: "Error executing tool get_note: No note 'grocries'. Closest titles: groceries"
export const typo = await client.callTool({ name: "get_note", arguments: { title: "grocries" } });

// ranked, with snippets: [{ title: "groceries", snippet: "**milk**, eggs", updated_at }, { title: "pancake recipe", … }]
export const hits = await client.callTool({ name: "search_notes", arguments: { query: "milk" } });

await client.close();
await server.close();
await store.close();
