// In-process overhead: calls per second through the SDK's in-memory transport and a real SDK
// Client, Toolshed's runtime against a bare McpServer.registerTool with the same Zod schemas.
// Calls go one after another, so the figure is the cost of one call through each stack.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { notesPack, SqliteNotesStore } from "@toolshed/notes";
import { definePack, defineTool } from "@toolshed/schema";
import { connectInMemory, createLogger, createServer } from "@toolshed/server";
import { TOOLS } from "./contenders/index.mjs";
import { sdkServer } from "./contenders/sdk-server.mjs";
import { ADD, add, openNoteReader } from "./contenders/tools.mjs";
import { checkCall } from "./harness/mcp.mjs";

async function toolshed(db, { coerce = true } = {}) {
  const store = SqliteNotesStore.open(db);
  const addTool = defineTool({ ...ADD, annotations: { readOnlyHint: true }, handler: add });
  const server = createServer({
    name: "toolshed-bench",
    version: "1.0.0",
    packs: [notesPack({ store, closeStore: true }), definePack({ name: "bench", tools: [addTool] })],
    // The per-call info line goes to stderr synchronously; the bare server logs nothing.
    logger: createLogger({ level: "warn" }),
    coerce,
  });
  const client = await connectInMemory(server);
  return {
    client,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

async function sdk(db) {
  const notes = openNoteReader(db);
  const server = sdkServer(notes);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(clientSide);
  return {
    client,
    close: async () => {
      await client.close();
      await server.close();
      notes.close();
    },
  };
}

export const INPROCESS_CONTENDERS = [
  { id: "toolshed", label: "Toolshed runtime", open: toolshed },
  // Lax coercion runs only after arguments fail as sent: off, the same calls show what it costs.
  { id: "toolshed-strict", label: "Toolshed, coercion off", open: (db) => toolshed(db, { coerce: false }) },
  { id: "sdk", label: "McpServer.registerTool", open: sdk, reference: true },
];

async function timeCalls(client, { tool, args, value }, calls) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) {
    const result = await client.callTool({ name: tool, arguments: args });
    // Checking every answer would time the check; the first and last are enough to catch a fault.
    if (i === 0 || i === calls - 1) {
      const problem = checkCall({ result }, value);
      if (problem) throw new Error(`${tool}: ${problem}`);
    }
  }
  return calls / (Number(process.hrtime.bigint() - t0) / 1e9);
}

export async function runInProcessBench({ db, rounds, calls, warmup, log, contenders = INPROCESS_CONTENDERS }) {
  const rate = {};
  const failures = [];
  for (const c of contenders) rate[c.id] = Object.fromEntries(TOOLS.map((t) => [t.tool, []]));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 ? [...contenders].reverse() : contenders;
    for (const c of order) {
      let opened;
      try {
        opened = await c.open(db);
        for (const t of TOOLS) {
          await timeCalls(opened.client, t, warmup);
          const r = await timeCalls(opened.client, t, calls);
          rate[c.id][t.tool].push(r);
          log(
            `in-process round ${round + 1}/${rounds} ${c.label.padEnd(24)} ${t.tool.padEnd(8)} ${Math.round(r)} calls/s`,
          );
        }
      } catch (error) {
        failures.push(`${c.label}: ${error.message}`);
        log(`in-process ${c.label}: FAILED ${error.message}`);
      } finally {
        await opened?.close();
      }
    }
  }
  return { contenders, tools: TOOLS.map((t) => t.tool), rate, failures, rounds, calls };
}
