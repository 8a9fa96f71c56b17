// Serves Toolshed over Streamable HTTP for the conformance suite, with the real HTTP server app:
// the fixture pack in sessions mode, or the three packs with demo data.
import { fileURLToPath } from "node:url";
import { startHttpServer } from "@toolshed/http-server";
import { fixturePack } from "./fixture-pack.mjs";

const common = { host: "127.0.0.1", db: ":memory:", rateLimit: 0, handleSignals: false };

/** The fixture pack alone, in sessions mode (sampling, elicitation and subscriptions need one). */
export function startFixtureServer({ port = 0, logLevel = "warn" } = {}) {
  return startHttpServer({ ...common, port, logLevel, sessions: true, packs: [], extraPacks: [fixturePack] });
}

/** notes, tickets and crm on demo data, as `npm start` serves them. */
export function startPacksServer({ port = 0, logLevel = "warn", sessions = false } = {}) {
  return startHttpServer({ ...common, port, logLevel, sessions, demo: true });
}

// `node src/serve.mjs [port]`: serve the fixture pack until interrupted.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const server = await startFixtureServer({ port: Number(process.argv[2] ?? 0), logLevel: "info" });
  process.stderr.write(`fixture server listening on ${server.url}\n`);
  const stop = () => server.close().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
