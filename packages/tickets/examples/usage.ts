import { connectInMemory, createLogger, createServer } from "@toolshed/server";
import { SqliteTicketsStore, seedDemo, ticketsPack } from "@toolshed/tickets";

// A file path keeps tickets across restarts ("./tickets.db"); ":memory:" is for a quick try.
export const store = SqliteTicketsStore.open(":memory:");
await seedDemo(store); // 16 realistic tickets, T-1001 to T-1016

const server = createServer({
  name: "support",
  version: "1.0.0",
  packs: [ticketsPack({ store, closeStore: true })],
  logger: createLogger({ level: "warn" }), // JSON lines on stderr; stdout stays for the protocol
});
const client = await connectInMemory(server);

// Search first: two open tickets match "password reset", T-1009 ranked above T-1001.
export const found = await client.callTool({ name: "search_tickets", arguments: { query: "password reset" } });

// The new ticket is T-1017, and `similar` names T-1001 and T-1009 as possible duplicates.
const newTicket = {
  name: "create_ticket",
  arguments: {
    title: "Password reset link expired",
    body: "The link in the reset email says it has expired.",
    idempotency_key: "support-form-4711",
  },
};
export const created = await client.callTool(newTicket);
// A retry with the same idempotency_key returns the same result and creates nothing.
export const retried = await client.callTool(newTicket);

// Closing needs a resolution; the model is told: resolution: is required when status is "closed".
export const refused = await client.callTool({
  name: "update_ticket_status",
  arguments: { id: "T-1017", status: "closed" },
});

// There is no T-1018, and the error names the closest ids: T-1008, T-1010, T-1011.
export const missing = await client.callTool({ name: "get_ticket", arguments: { id: "T-1018" } });

await client.close();
await server.close(); // closes the store too (closeStore: true)
