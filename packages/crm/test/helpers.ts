// Shared set-up for the end-to-end tests: a real SQLite file, the pack on a Toolshed server, a real SDK Client.

import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { connectInMemory, createLogger, createServer, type ToolshedServer } from "@toolshed/server";
import { openSqlite } from "@toolshed/storage";
import { captureLogger as captureWith, tempDir } from "@toolshed/test-support";
import { crmPack, type FaultOptions, type FaultyCrmStore, SqliteCrmStore, seedDemo, withFaults } from "../src/index.js";

export const META = "toolshed.dev/error";

export { errorMeta, resultText as text, tempDir } from "@toolshed/test-support";

/** A logger from @toolshed/server's createLogger whose JSON lines land in `lines`. */
export const captureLogger = () => captureWith(createLogger);

export interface CrmFixture {
  client: Client;
  server: ToolshedServer;
  store: SqliteCrmStore;
  faulty: FaultyCrmStore;
  dbPath: string;
  logs: Array<Record<string, unknown>>;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** A seeded SQLite file served by the pack (through a fault wrapper with no faults yet). */
export async function startCrm(
  options: { timeoutMs?: number; faults?: FaultOptions; seed?: boolean } = {},
): Promise<CrmFixture> {
  const tmp = tempDir("crm");
  const dbPath = join(tmp.dir, "crm.db");
  const store = SqliteCrmStore.open(dbPath);
  if (options.seed !== false) await seedDemo(store);
  const faulty = withFaults(store, options.faults);
  const captured = captureLogger();
  const server = createServer({
    name: "crm-test",
    version: "1.0.0",
    packs: [crmPack({ store: faulty, closeStore: true, timeoutMs: options.timeoutMs })],
    logger: captured.logger,
  });
  const client = await connectInMemory(server);
  return {
    client,
    server,
    store,
    faulty,
    dbPath,
    logs: captured.lines,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    async close() {
      await client.close();
      await server.close();
      tmp.remove();
    },
  };
}

/** Row counts of every CRM table and the accounts' content, read through a separate connection. */
export function databaseState(dbPath: string): { accounts: number; fts: number; idempotency: number; content: string } {
  const db = openSqlite(dbPath);
  try {
    const count = (table: string) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    const rows = db
      .prepare("SELECT id, name, tier, arr, domain, notes, archived, updated_at FROM crm_accounts ORDER BY id")
      .all();
    return {
      accounts: count("crm_accounts"),
      fts: count("crm_accounts_fts_docsize"),
      idempotency: count("toolshed_idempotency"),
      content: JSON.stringify(rows),
    };
  } finally {
    db.close();
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
