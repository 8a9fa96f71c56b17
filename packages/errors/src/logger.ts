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
  process.stderr.write(`${safeStringify(record)}\n`);
}

/** JSON that never throws: cycles and BigInts, which a thrown value may hold, are written as text. */
function safeStringify(value: unknown): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === "bigint") return `${v}n`;
    if (typeof v === "object" && v !== null) {
      if (seen.has(v)) return "[circular]";
      seen.add(v);
    }
    return v;
  });
}

/** Error details for the server log only. */
export function serializeError(error: unknown, depth = 0): unknown {
  if (!(error instanceof Error)) return error;
  const out: Record<string, unknown> = { type: error.name, message: error.message, stack: error.stack };
  const code = (error as { code?: unknown }).code;
  if (code !== undefined) out.code = code;
  // Cause chains can be cyclic; a few levels say enough.
  if (error.cause !== undefined)
    out.cause = depth < 5 ? serializeError(error.cause, depth + 1) : "[cause chain truncated]";
  return out;
}

/** What a client is told of an unexpected failure outside a tool call: nothing but its reference. */
export function internalErrorMessage(ref: string): string {
  return `Internal error (ref ${ref})`;
}
