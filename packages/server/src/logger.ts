import { type Logger as PinoLogger, pino } from "pino";

export type LogLevelName = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";

export interface CreateLoggerOptions {
  level?: LogLevelName;
  /** File descriptor or stream to write to; stderr (2) by default, never stdout. */
  destination?: number | NodeJS.WritableStream;
  name?: string;
}

/** JSON-lines logger on stderr (pino); tokens and authorization headers are redacted. */
export function createLogger(options: CreateLoggerOptions = {}): PinoLogger {
  const destination = options.destination ?? 2;
  const stream = typeof destination === "number" ? pino.destination({ dest: destination, sync: true }) : destination;
  return pino(
    {
      level: options.level ?? "info",
      base: options.name === undefined ? {} : { name: options.name },
      redact: {
        paths: ["token", "*.token", "authorization", "*.authorization", "headers.authorization"],
        censor: "[redacted]",
      },
      serializers: { err: pino.stdSerializers.err },
    },
    stream,
  );
}
