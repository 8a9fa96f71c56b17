import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "@toolshed/schema";
import { connectInMemory, createLogger, createServer, type ToolshedServer } from "@toolshed/server";
import { notesPack } from "../src/pack.js";
import { SqliteNotesStore, type SqliteNotesStoreOptions } from "../src/sqlite-store.js";

export const META = "toolshed.dev/error";

/** A fresh folder under the OS temp dir, removed by the returned cleanup. */
export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "toolshed-notes-"));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A pino logger writing JSON lines into an array, to read what the server logged. */
export function captureLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split("\n")) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: createLogger({ destination: stream, level: "debug" }), lines };
}

/** A clock that starts at 2025-03-01T09:00:00.000Z and moves one minute per reading. */
export function steppingClock(start = Date.parse("2025-03-01T09:00:00.000Z")): () => Date {
  let t = start - 60_000;
  return () => {
    t += 60_000;
    return new Date(t);
  };
}

export interface Harness {
  file: string;
  store: SqliteNotesStore;
  server: ToolshedServer;
  client: Client;
  logs: ReturnType<typeof captureLogger>;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** A notes server on a real SQLite file in a temp dir, with a real SDK Client connected. */
export async function startHarness(options: SqliteNotesStoreOptions = {}): Promise<Harness> {
  const tmp = tempDir();
  const file = join(tmp.dir, "notes.db");
  const store = SqliteNotesStore.open(file, { now: steppingClock(), ...options });
  const logs = captureLogger();
  const server = createServer({
    name: "notes-test",
    version: "1.0.0",
    packs: [notesPack({ store })],
    logger: logs.logger,
  });
  const client = await connectInMemory(server);
  return {
    file,
    store,
    server,
    client,
    logs,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    async close() {
      await client.close();
      await server.close();
      await store.close();
      tmp.cleanup();
    },
  };
}

/** The text of a result's content blocks. */
export function text(result: CallToolResult): string {
  return (result.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? "").join("\n");
}

/** The error class a result carries (C9), or undefined for a success. */
export function errorMeta(result: CallToolResult): Record<string, unknown> | undefined {
  return result._meta?.[META] as Record<string, unknown> | undefined;
}
