#!/usr/bin/env node
// The server process of `npm start`: toolshed-http (the built apps/http-server), which reports to
// scripts/run.mjs over the IPC channel only the two of them hold: where it listens, or why it could
// not start. A port that answers is no proof: another program may hold it.
import { HttpConfigError, parseHttpArgs, startHttpServer, usageText, VERSION } from "../apps/http-server/dist/index.js";

/**
 * @param {{ type: "listening", url: string, pid: number, packs: string[], database: string }
 *   | { type: "failed", message: string }} message
 */
function report(message) {
  return new Promise((resolve) => {
    if (!process.send || !process.connected) return resolve(undefined);
    process.send(message, () => resolve(undefined));
  });
}

/** @param {string} message @param {number} code */
async function fail(message, code) {
  if (supervised) await report({ type: "failed", message });
  else process.stderr.write(`toolshed-http: ${message}\n`);
  process.exit(code);
}

// Started by run.mjs with a channel; the channel must not keep a --help or --version run alive.
const supervised = typeof process.send === "function";
process.channel?.unref();

let config;
try {
  config = parseHttpArgs(process.argv.slice(2), process.env);
} catch (error) {
  if (error instanceof HttpConfigError) await fail(error.message, 2);
  throw error;
}
if (config.command === "help") {
  process.stdout.write(usageText(VERSION));
} else if (config.command === "version") {
  process.stdout.write(`${VERSION}\n`);
} else {
  const { command: _command, ...options } = config;
  let running;
  try {
    running = await startHttpServer({ ...options, handleSignals: true });
  } catch (error) {
    if (error instanceof HttpConfigError) await fail(error.message, 2);
    await fail(`could not start: ${error instanceof Error ? error.message : String(error)}`, 1);
  }
  // A closed terminal or a parent that is gone (even by SIGKILL) shuts the server down the same
  // graceful way SIGTERM does, so no server is left holding the port.
  const stop = () => process.kill(process.pid, "SIGTERM");
  process.on("SIGHUP", stop);
  process.on("disconnect", stop);
  if (supervised && !process.connected) stop();
  const database = options.databaseUrl === undefined ? options.db : "PostgreSQL";
  if (running) await report({ type: "listening", url: running.url, pid: process.pid, packs: options.packs, database });
}
