import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { notesPack, SqliteNotesStore, seedDemo } from "@toolshed/notes";
import { attachPack, createLogger } from "@toolshed/server";

// No top-level await, so tsc compiles this file for a CommonJS project as well as an ES module one.
async function main() {
  const store = SqliteNotesStore.open(":memory:");
  await seedDemo(store);
  const mcpServer = new McpServer({ name: "my-server", version: "1.0.0" });
  attachPack(mcpServer, notesPack({ store }), { logger: createLogger({ level: "warn" }) });

  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await mcpServer.connect(serverSide);
  const client = new Client({ name: "my-client", version: "1.0.0" });
  await client.connect(clientSide);
  const note = await client.callTool({ name: "get_note", arguments: { title: "groceries" } });
  // The pack's resource template note://{title}, registered on your McpServer.
  const read = await client.readResource({ uri: "note://groceries" });
  await client.close();
  await mcpServer.close();
  store.close();
  return { note: note.structuredContent, resource: read.contents[0] };
}

main().then(
  (seen) => process.stdout.write(`${JSON.stringify(seen)}\n`),
  (error) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  },
);
