import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { type CallToolResult, McpError } from "@modelcontextprotocol/sdk/types.js";
import { connectInMemory, createLogger, createServer, type ToolshedServer } from "@toolshed/server";
import { openSqlite, type SqliteDatabase } from "@toolshed/storage";
import { captureLogger as captureWith, tempDir as sharedTempDir } from "@toolshed/test-support";
import { SqliteTicketsStore, ticketsPack } from "../src/index.js";

export const ERROR_META = "toolshed.dev/error";

export { errorMeta, resultText as text } from "@toolshed/test-support";

/** The shared tempDir; these tests call its remove() `cleanup`. */
export function tempDir(): { dir: string; cleanup: () => void } {
  const tmp = sharedTempDir("tickets");
  return { dir: tmp.dir, cleanup: tmp.remove };
}

/** A logger from @toolshed/server's createLogger whose JSON lines land in `lines`. */
export const captureLogger = () => captureWith(createLogger);

/** A clock the test moves by hand: starts at 2025-03-01T09:00:00.000Z. */
export function manualClock() {
  let ms = Date.parse("2025-03-01T09:00:00.000Z");
  return {
    now: () => new Date(ms),
    advance(seconds: number) {
      ms += seconds * 1000;
    },
    iso: () => new Date(ms).toISOString(),
  };
}

export interface Harness {
  dir: string;
  file: string;
  store: SqliteTicketsStore;
  server: ToolshedServer;
  client: Client;
  logs: ReturnType<typeof captureLogger>;
  clock: ReturnType<typeof manualClock>;
  /** A second connection to the same file, to count rows behind the store's back. */
  raw: SqliteDatabase;
  close(): Promise<void>;
}

/** A server with the tickets pack on a real SQLite file in a temp dir, and a real SDK Client. */
export async function startHarness(options: { busyTimeoutMs?: number } = {}): Promise<Harness> {
  const { dir, cleanup } = tempDir();
  const file = join(dir, "tickets.db");
  const clock = manualClock();
  const store = SqliteTicketsStore.open(file, { now: clock.now, ...options });
  const logs = captureLogger();
  const server = createServer({
    name: "tickets-test",
    version: "1.0.0",
    packs: [ticketsPack({ store })],
    logger: logs.logger,
  });
  const client = await connectInMemory(server);
  const raw = openSqlite(file);
  return {
    dir,
    file,
    store,
    server,
    client,
    logs,
    clock,
    raw,
    async close() {
      await client.close();
      await server.close();
      await store.close();
      raw.close();
      cleanup();
    },
  };
}

export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** Row counts of every tickets table, to prove a call wrote nothing. */
export function rowCounts(db: SqliteDatabase): Record<string, number> {
  const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
  return {
    tickets: count("SELECT COUNT(*) AS n FROM tickets"),
    comments: count("SELECT COUNT(*) AS n FROM ticket_comments"),
    idempotency: count("SELECT COUNT(*) AS n FROM toolshed_idempotency"),
    fts: count("SELECT COUNT(*) AS n FROM tickets_fts"),
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The JSON-RPC error a request failed with; fails the test when it succeeded. */
export async function rpcError(promise: Promise<unknown>): Promise<McpError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof McpError) return error;
    throw error;
  }
  throw new Error("expected a JSON-RPC error");
}
