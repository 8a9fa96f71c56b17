import { notesPack, SqliteNotesStore, seedDemo } from "@toolshed/notes";
import { connectInMemory, createLogger, createServer } from "@toolshed/server";

const store = SqliteNotesStore.open(":memory:");
await seedDemo(store);
const server = createServer({
  name: "notes",
  version: "1.0.0",
  packs: [notesPack({ store, closeStore: true })],
  logger: createLogger({ level: "warn" }),
});
const client = await connectInMemory(server);

// structuredContent: { title: "shopping list", body: "bread", tags: ["home"], words: 1, version: 1, … }
export const created = await client.callTool({
  name: "create_note",
  arguments: { title: "shopping list", body: "bread", tags: ["Home"] },
});

// isError, code "conflict", text: "Error executing tool update_note: Note 'shopping list' is at version 1, not 7: …"
export const stale = await client.callTool({
  name: "update_note",
  arguments: { title: "shopping list", body: "bread, jam", expected_version: 7 },
});

// The resource note://{title}: the body as markdown. contents[0].text: "milk, eggs"
export const resource = await client.readResource({ uri: "note://groceries" });

// The prompt summarize_note: one user message with the body in a fenced block.
export const prompt = await client.getPrompt({ name: "summarize_note", arguments: { title: "groceries" } });

await client.close();
await server.close();
