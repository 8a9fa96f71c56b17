import { connectInMemory, createLogger, createServer } from "@toolshed/server";
import { SqliteTicketsStore, seedDemo, ticketsPack } from "@toolshed/tickets";

const store = SqliteTicketsStore.open(":memory:");
await seedDemo(store);
const server = createServer({
  name: "support",
  version: "1.0.0",
  packs: [ticketsPack({ store, closeStore: true })],
  logger: createLogger({ level: "warn" }),
});
const client = await connectInMemory(server);

// isError, text: 'Invalid arguments for tool get_ticket:\nid: must be a ticket id such as "T-1001" (got "1001")'
export const badId = await client.callTool({ name: "get_ticket", arguments: { id: "1001" } });

// structuredContent: { id: "T-1001", status: "closed", previous_status: "open", changed: true, … }
export const closed = await client.callTool({
  name: "update_ticket_status",
  arguments: { id: "T-1001", status: "closed", resolution: "Reset links now last 24 hours" },
});

// The resource ticket://{id}: the ticket as markdown, with its resolution when closed.
export const resource = await client.readResource({ uri: "ticket://T-1001" });

// The prompt triage_ticket: asks the model to judge priority and look for duplicates.
export const prompt = await client.getPrompt({ name: "triage_ticket", arguments: { id: "T-1001" } });

// JSON-RPC error -32002 (not a tool result) naming the closest ids
export const unknown = await client.readResource({ uri: "ticket://T-9999" }).catch((error: unknown) => error);

await client.close();
await server.close();
