import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startHttpServer } from "@toolshed/http-server";

// What `toolshed-http --port 0 --db :memory: --demo --packs notes` with TOOLSHED_TOKENS does, in-process.
const running = await startHttpServer({
  port: 0,
  db: ":memory:",
  demo: true,
  packs: ["notes"],
  tokens: "reader-token-0123456789abcdef:tools:read",
  logLevel: "warn",
});

// No token: 401 with WWW-Authenticate pointing at the OAuth protected resource metadata.
const anonymous = await fetch(running.url, {
  method: "POST",
  headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
  body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
});
export const status = anonymous.status; // 401
export const challenge = anonymous.headers.get("www-authenticate"); // 'Bearer resource_metadata="http://…"'

// With a tools:read token: only read-only tools are listed and callable (C14).
const client = new Client({ name: "docs", version: "1.0.0" });
await client.connect(
  new StreamableHTTPClientTransport(new URL(running.url), {
    requestInit: { headers: { Authorization: "Bearer reader-token-0123456789abcdef" } },
  }),
);
export const tools = (await client.listTools()).tools.map((t) => t.name); // get_note, list_notes, search_notes
export const note = await client.callTool({ name: "get_note", arguments: { title: "groceries" } });

await client.close();
await running.close();
