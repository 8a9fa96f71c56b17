/** The slice of a pino-style logger that error handling needs. */
export interface ErrorLogger {
  error(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

/** A short random reference id that ties a client-visible error to the server log line. */
export function newErrorRef(): string {
  const bytes = new Uint8Array(4);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Writes one JSON line to stderr: the default when no logger is given (never stdout). */
export const stderrErrorLogger: ErrorLogger = {
  error: (obj, msg) => writeLine("error", obj, msg),
  warn: (obj, msg) => writeLine("warn", obj, msg),
};

function writeLine(level: string, obj: object, msg?: string): void {
  const record: Record<string, unknown> = { level, time: Date.now(), msg };
  for (const [key, value] of Object.entries(obj)) record[key] = value instanceof Error ? serializeError(value) : value;
  process.stderr.write(`${JSON.stringify(record)}\n`);
}

/** Error details for the server log only. */
export function serializeError(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const out: Record<string, unknown> = { type: error.name, message: error.message, stack: error.stack };
  const code = (error as { code?: unknown }).code;
  if (code !== undefined) out.code = code;
  if (error.cause !== undefined) out.cause = serializeError(error.cause);
  return out;
}
