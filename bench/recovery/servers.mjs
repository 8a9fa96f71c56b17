// The four servers of the recovery benchmark, each serving the same fifteen tools of the three
// packs (same Zod schemas, same handlers, its own fresh SQLite file with the demo data), each
// reached through the SDK 1.x Client:
// - Toolshed: createServer with the packs, in memory;
// - SDK 1.32 McpServer.registerTool, in memory;
// - SDK v2 McpServer (@modelcontextprotocol/server), through its own in-memory transport;
// - FastMCP TS addTool, over its HTTP stream transport on a loopback port (it has no other way in).
// Every handler records the arguments it was given, so a call can be checked for the meaning it
// got, not only for being accepted.
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { InMemoryTransport as V2InMemoryTransport, McpServer as V2McpServer } from "@modelcontextprotocol/server";
import { openPacks } from "@toolshed/packs";
import { connectInMemory, createLogger, createServer } from "@toolshed/server";
import { FastMCP } from "fastmcp";
import { freePort } from "../harness/proc.mjs";

const CLIENT_INFO = { name: "recovery-bench", version: "1.0.0" };

/** The packs on a fresh SQLite file with demo data, their handlers recording what they are given. */
async function recordingPacks(dir, id) {
  const opened = await openPacks({ db: join(dir, `${id}.db`), demo: true });
  const seen = { calls: [] };
  const packs = opened.packs.map((pack) => ({
    ...pack,
    tools: pack.tools.map((tool) => ({
      ...tool,
      handler: (args, ctx) => {
        seen.calls.push({ tool: tool.name, args: structuredClone(args) });
        return tool.handler(args, ctx);
      },
    })),
  }));
  return { opened, packs, seen, tools: packs.flatMap((p) => p.tools) };
}

const silent = { debug() {}, info() {}, log() {}, warn() {}, error() {}, child: () => silent };

/** What a pack handler needs from its context, given by a framework that is not Toolshed. */
function peerContext(toolName, signal) {
  return { toolName, signal: signal ?? new AbortController().signal, logger: silent, progress: async () => {} };
}

/** A handler's value as the peers return it: its JSON text, and structured content when an object. */
function peerResult(value) {
  const text = JSON.stringify(value, null, 2);
  const isObject = typeof value === "object" && value !== null && !Array.isArray(value);
  return isObject
    ? { content: [{ type: "text", text }], structuredContent: value }
    : { content: [{ type: "text", text }] };
}

async function linked(server, Transport) {
  const [clientSide, serverSide] = Transport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client(CLIENT_INFO);
  await client.connect(clientSide);
  return client;
}

/** What a server gives the run: its client, what its handlers saw, and how to stop it all. */
function serving(r, client, stop) {
  return {
    client,
    seen: r.seen,
    close: async () => {
      await client.close();
      await stop();
      await r.opened.close();
    },
  };
}

async function toolshed(dir) {
  const r = await recordingPacks(dir, "toolshed");
  const server = createServer({
    name: "toolshed-recovery",
    version: "1.0.0",
    packs: r.packs,
    logger: createLogger({ level: "error" }),
  });
  const client = await connectInMemory(server, { clientName: CLIENT_INFO.name });
  return serving(r, client, () => server.close());
}

/** The SDK's McpServer (1.x or v2, same registerTool) with each tool's schema and handler. */
function mcpServer(id, Server, Transport) {
  return async (dir) => {
    const r = await recordingPacks(dir, id);
    const server = new Server({ name: `${id}-recovery`, version: "1.0.0" });
    for (const tool of r.tools) {
      server.registerTool(
        tool.name,
        { title: tool.title, description: tool.description, inputSchema: tool.input, annotations: tool.annotations },
        async (args, extra) => peerResult(await tool.handler(args, peerContext(tool.name, extra?.signal))),
      );
    }
    const client = await linked(server, Transport);
    return serving(r, client, () => server.close());
  };
}

async function fastmcp(dir) {
  const r = await recordingPacks(dir, "fastmcp");
  const server = new FastMCP({ name: "fastmcp-recovery", version: "1.0.0", logger: silent });
  for (const tool of r.tools) {
    server.addTool({
      name: tool.name,
      description: tool.description,
      parameters: tool.input,
      annotations: tool.annotations,
      execute: async (args) => peerResult(await tool.handler(args, peerContext(tool.name))),
    });
  }
  const port = await freePort();
  await server.start({
    transportType: "httpStream",
    httpStream: { port, host: "127.0.0.1", stateless: true, enableJsonResponse: true },
  });
  const client = new Client(CLIENT_INFO);
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
  return serving(r, client, () => server.stop());
}

export const RECOVERY_SERVERS = [
  { id: "toolshed", label: "Toolshed", open: toolshed, highlight: true },
  { id: "sdk", label: "SDK 1.x McpServer", open: mcpServer("sdk", McpServer, InMemoryTransport) },
  { id: "sdk2", label: "SDK v2 McpServer", open: mcpServer("sdk2", V2McpServer, V2InMemoryTransport) },
  { id: "fastmcp", label: "FastMCP TS", open: fastmcp },
];
