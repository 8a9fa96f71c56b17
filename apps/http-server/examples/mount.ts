import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createHttpApp } from "@toolshed/http";
import { openPacks } from "@toolshed/packs";

// The packs on one database; a file path keeps data between runs.
const opened = await openPacks({ db: ":memory:", packs: ["notes"], demo: true });

// Stateless by default; a token with only tools:read sees and calls only read-only tools.
const http = createHttpApp({
  packs: opened.packs,
  tokens: [{ id: "reporting", token: "reporting-token-0123456789", scopes: ["tools:read"] }],
  ready: () => opened.ready(),
});

// Your own Node server (or serve http.fetch from Hono, Bun or Deno).
const server = createServer(http.nodeListener);
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);

const client = new Client({ name: "example", version: "1.0.0" });
await client.connect(
  new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { Authorization: "Bearer reporting-token-0123456789" } },
  }),
);

// get_note, list_notes, search_notes: no create_note, update_note or delete_note for this token
export const tools = (await client.listTools()).tools.map((t) => t.name);

// structuredContent: { title: "groceries", body: "milk, eggs", words: 2 }
export const note = await client.callTool({ name: "get_note", arguments: { title: "groceries" } });

// isError, text: "Error executing tool create_note: your credentials allow read-only tools only; …"
export const denied = await client.callTool({ name: "create_note", arguments: { title: "x", body: "y" } });

await client.close();
await http.close(); // waits for calls in flight (10 s by default), then closes the runtime
server.close();
await opened.close();
