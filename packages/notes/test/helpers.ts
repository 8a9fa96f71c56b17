import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { connectInMemory, createLogger, createServer, type ToolshedServer } from "@toolshed/server";
import { captureLogger as captureWith, tempDir as sharedTempDir } from "@toolshed/test-support";
import { notesPack } from "../src/pack.js";
import { SqliteNotesStore, type SqliteNotesStoreOptions } from "../src/sqlite/store.js";

export const META = "toolshed.dev/error";

export { errorMeta, resultText as text } from "@toolshed/test-support";

/** The shared tempDir; these tests call its remove() `cleanup`. */
export function tempDir(): { dir: string; cleanup: () => void } {
  const tmp = sharedTempDir("notes");
  return { dir: tmp.dir, cleanup: tmp.remove };
}

/** A logger from @toolshed/server's createLogger whose JSON lines land in `lines`. */
export const captureLogger = () => captureWith(createLogger);

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
