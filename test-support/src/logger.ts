import { Writable } from "node:stream";
import type { Logger } from "@toolshed/schema";

/** A logger that drops every line. */
export const silentLogger: Logger = { error() {}, warn() {}, info() {}, debug() {} };

/** What a logger factory such as @toolshed/server's createLogger takes. */
export interface LoggerOptions {
  destination: Writable;
  level: "debug";
}

/**
 * A logger from `createLogger` (pass @toolshed/server's, so its redaction and serializers apply)
 * that writes its JSON lines into `lines`, parsed, to read what the server logged. The factory is
 * a parameter because this package cannot depend on @toolshed/server, whose tests use it.
 */
export function captureLogger(createLogger: (options: LoggerOptions) => Logger): {
  logger: Logger;
  lines: Array<Record<string, unknown>>;
} {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n")) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: createLogger({ destination, level: "debug" }), lines };
}
