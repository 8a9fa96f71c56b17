// Contender: Toolshed's HTTP server as the bin runs it (startHttpServer), notes pack on the shared
// SQLite file plus an `add` pack. `--mode stateless|sessions`; `--tasks on` lets `add` run as a task
// of the tasks extension (bench/tasks.mjs), kept in the same SQLite file.
import { startHttpServer } from "@toolshed/http-server";
import { definePack, defineTool } from "@toolshed/schema";
import { ADD, add, announce, argsOf } from "./tools.mjs";

const args = argsOf();
const addPack = definePack({
  name: "bench",
  tools: [
    defineTool({
      name: ADD.name,
      description: ADD.description,
      input: ADD.input,
      output: ADD.output,
      annotations: { readOnlyHint: true },
      ...(args.tasks === "on" ? { task: "optional" } : {}),
      handler: add,
    }),
  ],
});

const running = await startHttpServer({
  port: Number(args.port),
  db: args.db,
  packs: ["notes"],
  extraPacks: [addPack],
  sessions: args.mode === "sessions",
  // The load comes from one address: the default 600 requests/minute would answer 429.
  rateLimit: 0,
  // Per-request info lines would cost more than the other contenders' silence.
  logLevel: "warn",
  handleSignals: true,
});
announce(running.url);
