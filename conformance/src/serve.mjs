// Serves Toolshed over Streamable HTTP for the conformance suite, with the real HTTP server app:
// the fixture pack, or the three packs with demo data.
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { startHttpServer } from "@toolshed/http-server";
import { fixturePack } from "./fixture-pack.mjs";
import { tasksPack } from "./tasks-pack.mjs";

const common = { host: "127.0.0.1", db: ":memory:", rateLimit: 0, handleSignals: false };

/**
 * The fixture pack alone. Stateless by default, as the server runs by default: that is what the
 * 2026-07-28 requirement set needs. The 2025-11-25 set needs `sessions: true`: its sampling,
 * elicitation, logging and subscription scenarios are server-to-client messages on a session.
 */
export function startFixtureServer({ port = 0, logLevel = "warn", sessions = false } = {}) {
  return startHttpServer({ ...common, port, logLevel, sessions, packs: [], extraPacks: [fixturePack] });
}

/** The tasks scenarios' tools; tasks live in the SQLite database, as the app keeps them by default. */
export function startTasksFixtureServer({ port = 0, logLevel = "warn" } = {}) {
  return startHttpServer({
    ...common,
    port,
    logLevel,
    packs: [],
    extraPacks: [tasksPack],
    // The suite polls every 200 ms.
    app: { tasks: { pollIntervalMs: 200 } },
  });
}

/** notes, tickets and crm on demo data, as `npm start` serves them. */
export function startPacksServer({ port = 0, logLevel = "warn", sessions = false } = {}) {
  return startHttpServer({ ...common, port, logLevel, sessions, demo: true });
}

// `node src/serve.mjs [port] [--sessions]`: serve the fixture pack until interrupted.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values, positionals } = parseArgs({
    options: { sessions: { type: "boolean", default: false } },
    allowPositionals: true,
  });
  const server = await startFixtureServer({
    port: Number(positionals[0] ?? 0),
    logLevel: "info",
    sessions: values.sessions,
  });
  process.stderr.write(`fixture server (${values.sessions ? "sessions" : "stateless"}) listening on ${server.url}\n`);
  const stop = () => server.close().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
