// Shared set-up for the end-to-end tests: a real SQLite file, the pack on a Toolshed server, a real SDK Client.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "@toolshed/schema";
import { connectInMemory, createLogger, createServer, type ToolshedServer } from "@toolshed/server";
import { openSqlite } from "@toolshed/storage";
import {
  crmPack,
  type FaultOptions,
  type FaultyCrmBackend,
  SqliteCrmBackend,
  seedDemo,
  withFaults,
} from "../src/index.js";

export const META = "toolshed.dev/error";

export interface ErrorMeta {
  kind: string;
  code: string;
  retryable: boolean;
  ref?: string;
  retryAfterMs?: number;
  issues?: Array<{ path: string; message: string }>;
}

/** The text of a tool result's content blocks, joined by newlines. */
export function text(result: CallToolResult): string {
  return (result.content as Array<{ text?: string }>).map((c) => c.text ?? "").join("\n");
}

export function errorMeta(result: CallToolResult): ErrorMeta | undefined {
  return result._meta?.[META] as ErrorMeta | undefined;
}

/** A temporary folder for database files, removed by the returned function. */
export function tempDir(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "toolshed-crm-"));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A pino logger writing into an array, to read what the server logged. */
export function captureLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n")) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: createLogger({ destination: stream, level: "debug" }), lines };
}

export interface CrmFixture {
  client: Client;
  server: ToolshedServer;
  backend: SqliteCrmBackend;
  faulty: FaultyCrmBackend;
  dbPath: string;
  logs: Array<Record<string, unknown>>;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** A seeded SQLite file served by the pack (through a fault wrapper with no faults yet). */
export async function startCrm(
  options: { timeoutMs?: number; faults?: FaultOptions; seed?: boolean } = {},
): Promise<CrmFixture> {
  const tmp = tempDir();
  const dbPath = join(tmp.dir, "crm.db");
  const backend = SqliteCrmBackend.open(dbPath);
  if (options.seed !== false) await seedDemo(backend);
  const faulty = withFaults(backend, options.faults);
  const captured = captureLogger();
  const server = createServer({
    name: "crm-test",
    version: "1.0.0",
    packs: [crmPack({ backend: faulty, timeoutMs: options.timeoutMs })],
    logger: captured.logger,
  });
  const client = await connectInMemory(server);
  return {
    client,
    server,
    backend,
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
