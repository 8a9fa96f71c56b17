import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernStdio } from "@modelcontextprotocol/client/stdio";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as LegacyStdio } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as LegacyHttp } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { CreateMessageRequestSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { type RunningHttpServer, startHttpServer } from "@toolshed/http-server";
import { build } from "esbuild";
import { crmPack, FakeCrm, miscPack, notesPack, ticketsPack } from "../../../packages/server/test/fixtures.js";
import { ContextProbe, contextPack } from "../../../packages/server/test/more-fixtures.js";

/** One way to reach a server: an official client of one era over one transport. */
export interface Target {
  name: string;
  era: "legacy" | "modern";
  transport: "stdio" | "http";
  /** A client on a fresh server serving the contract fixture packs. */
  connect(options?: ConnectOptions): Promise<Connection>;
}

export interface ConnectOptions {
  readOnly?: boolean;
  token?: string;
  /** The client can answer elicitation and sampling with these. */
  answers?: { name: string; model: string; text: string };
}

export interface Connection {
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  listTools(): Promise<Array<{ name: string; annotations?: unknown; inputSchema: unknown; title?: string }>>;
  readResource(uri: string): Promise<unknown>;
  /** The URL of the HTTP server, for raw requests. */
  url?: string;
  close(): Promise<void>;
}

/** A protocol error as either client reports it: the JSON-RPC code, message (no "MCP error" prefix) and data. */
export interface WireError {
  code: number;
  message: string;
  data?: unknown;
}

export function wireError(error: unknown): WireError {
  const e = error as { code?: unknown; message?: unknown; data?: unknown };
  if (typeof e?.code !== "number") throw error;
  return { code: e.code, message: String(e.message).replace(/^MCP error -?\d+: /, ""), data: e.data };
}

const here = fileURLToPath(new URL(".", import.meta.url));
const bundle = fileURLToPath(new URL("../../node_modules/.cache/toolshed-contract/server.mjs", import.meta.url));
let bundled: Promise<string> | undefined;

/** The stdio fixture server as one ES module (built once per run from TypeScript). */
function stdioServer(): Promise<string> {
  bundled ??= (async () => {
    mkdirSync(fileURLToPath(new URL("../../node_modules/.cache/toolshed-contract/", import.meta.url)), {
      recursive: true,
    });
    await build({
      entryPoints: [`${here}contract-server.ts`],
      outfile: bundle,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      packages: "external",
      logLevel: "silent",
      plugins: [
        {
          // The fixtures import the server's sources for their logger; the built package serves as well.
          name: "server-package",
          setup(b) {
            b.onResolve({ filter: /\/src\/index\.js$/ }, () => ({ path: "@toolshed/server", external: true }));
          },
        },
      ],
    });
    return bundle;
  })();
  return bundled;
}

export const WRITER_TOKEN = "contract-writer-token-0123456789";
export const READER_TOKEN = "contract-reader-token-0123456789";
// TOOLSHED_TOKENS form: TOKEN:SCOPES entries separated by ";".
const TOKENS = `${WRITER_TOKEN}:tools:read,tools:write;${READER_TOKEN}:tools:read`;

async function httpServer(readOnly: boolean): Promise<RunningHttpServer> {
  return startHttpServer({
    host: "127.0.0.1",
    port: 0,
    db: ":memory:",
    packs: [],
    extraPacks: [notesPack, ticketsPack, crmPack(new FakeCrm()), miscPack, contextPack(new ContextProbe())],
    readOnly,
    rateLimit: 0,
    logLevel: "fatal",
    tokens: TOKENS,
  });
}

function legacyConnection(client: LegacyClient, close: () => Promise<void>, url?: string): Connection {
  return {
    call: async (name, args) => (await client.callTool({ name, arguments: args ?? {} })) as CallToolResult,
    listTools: async () => (await client.listTools()).tools,
    readResource: (uri) => client.readResource({ uri }),
    ...(url ? { url } : {}),
    close: async () => {
      await client.close();
      await close();
    },
  };
}

function modernConnection(client: ModernClient, close: () => Promise<void>, url?: string): Connection {
  return {
    call: async (name, args) => (await client.callTool({ name, arguments: args ?? {} })) as CallToolResult,
    listTools: async () => (await client.listTools()).tools as never,
    readResource: (uri) => client.readResource({ uri }),
    ...(url ? { url } : {}),
    close: async () => {
      await client.close();
      await close();
    },
  };
}

const info = { name: "contract-client", version: "1.0.0" };
const pinned = { versionNegotiation: { mode: { pin: "2026-07-28" } } } as const;

function legacyClient(options: ConnectOptions): LegacyClient {
  const { answers } = options;
  if (!answers) return new LegacyClient(info);
  const client = new LegacyClient(info, { capabilities: { elicitation: {}, sampling: {} } });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { name: answers.name } }));
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({
    role: "assistant",
    model: answers.model,
    content: { type: "text", text: answers.text },
  }));
  return client;
}

function modernClient(options: ConnectOptions): ModernClient {
  const { answers } = options;
  if (!answers) return new ModernClient(info, { capabilities: {}, ...pinned });
  const client = new ModernClient(info, { capabilities: { elicitation: { form: {} }, sampling: {} }, ...pinned });
  client.setRequestHandler("elicitation/create", async () => ({ action: "accept", content: { name: answers.name } }));
  client.setRequestHandler("sampling/createMessage", async () => ({
    role: "assistant",
    model: answers.model,
    content: { type: "text", text: answers.text },
  }));
  return client;
}

export const TARGETS: Target[] = [
  {
    name: "SDK 1.x client (2025-11-25) over stdio",
    era: "legacy",
    transport: "stdio",
    async connect(options = {}) {
      const client = legacyClient(options);
      const args = [await stdioServer(), ...(options.readOnly ? ["--read-only"] : [])];
      await client.connect(new LegacyStdio({ command: process.execPath, args, stderr: "ignore" }));
      return legacyConnection(client, async () => {});
    },
  },
  {
    name: "SDK 1.x client (2025-11-25) over HTTP",
    era: "legacy",
    transport: "http",
    async connect(options = {}) {
      const server = await httpServer(options.readOnly ?? false);
      const client = legacyClient(options);
      const headers = { Authorization: `Bearer ${options.token ?? WRITER_TOKEN}` };
      await client.connect(new LegacyHttp(new URL(server.url), { requestInit: { headers } }));
      return legacyConnection(client, () => server.close(), server.url);
    },
  },
  {
    name: "SDK 2.x client (2026-07-28) over stdio",
    era: "modern",
    transport: "stdio",
    async connect(options = {}) {
      const client = modernClient(options);
      const args = [await stdioServer(), ...(options.readOnly ? ["--read-only"] : [])];
      await client.connect(new ModernStdio({ command: process.execPath, args, stderr: "ignore" }));
      return modernConnection(client, async () => {});
    },
  },
  {
    name: "SDK 2.x client (2026-07-28) over HTTP",
    era: "modern",
    transport: "http",
    async connect(options = {}) {
      const server = await httpServer(options.readOnly ?? false);
      const client = modernClient(options);
      const headers = { Authorization: `Bearer ${options.token ?? WRITER_TOKEN}` };
      await client.connect(new ModernHttp(new URL(server.url), { requestInit: { headers } }));
      return modernConnection(client, () => server.close(), server.url);
    },
  },
];
