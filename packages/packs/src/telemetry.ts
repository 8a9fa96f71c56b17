import type { IMetricReader } from "@opentelemetry/sdk-metrics";

/**
 * @toolshed/packs/telemetry: starts the OpenTelemetry Node SDK for the Toolshed servers when the
 * standard OTEL_* variables ask for it. The SDK is loaded only then; the libraries record through
 * @opentelemetry/api alone.
 */

type Env = Readonly<Record<string, string | undefined>>;

/** The server's JSON-lines logger (pino on stderr). */
interface Logger {
  error(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

const EXPORTERS = {
  OTEL_TRACES_EXPORTER: ["otlp", "zipkin", "console", "none"],
  OTEL_METRICS_EXPORTER: ["otlp", "prometheus", "console", "none"],
  OTEL_LOGS_EXPORTER: ["otlp", "console", "none"],
} as const;
const PROTOCOL_VARIABLES = [
  "OTEL_EXPORTER_OTLP_PROTOCOL",
  "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
  "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL",
  "OTEL_EXPORTER_OTLP_LOGS_PROTOCOL",
];
const PROTOCOLS = ["http/protobuf", "http/json", "grpc"];
const ENDPOINT_VARIABLES = [
  "OTEL_EXPORTER_OTLP_ENDPOINT",
  "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
  "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
  "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
];
const LOG_LEVELS = ["none", "error", "warn", "info", "debug", "verbose", "all"];

function list(env: Env, name: string): string[] | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  return raw
    .split(",")
    .map((item) => item.trim().toLowerCase())
    .filter((item) => item !== "");
}

/**
 * Whether the standard OTEL_* variables ask for the OpenTelemetry SDK: an exporter other than
 * `none`, or an OTLP endpoint, and not OTEL_SDK_DISABLED=true.
 */
export function openTelemetryRequested(env: Env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  const traces = list(env, "OTEL_TRACES_EXPORTER");
  const metrics = list(env, "OTEL_METRICS_EXPORTER");
  const chosen = [...(traces ?? []), ...(metrics ?? [])];
  if (chosen.some((name) => name !== "none")) return true;
  const allOff = traces?.includes("none") && metrics?.includes("none");
  return !allOff && ENDPOINT_VARIABLES.some((name) => env[name]?.trim());
}

/**
 * What is wrong with OTEL_* values the SDK would only warn about and then ignore (its exporters
 * would silently send nothing), or undefined. `stdio`: stdout carries the protocol, so console
 * exporters cannot work.
 */
export function openTelemetryProblem(env: Env, options: { stdio?: boolean } = {}): string | undefined {
  for (const [name, known] of Object.entries(EXPORTERS)) {
    for (const value of list(env, name) ?? []) {
      if (!(known as readonly string[]).includes(value)) {
        return `${name}="${env[name]}" names no exporter; use ${known.join(", ")}`;
      }
      if (value === "console" && options.stdio) {
        return `${name}=console would write to stdout, which carries MCP messages; use otlp (OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318)`;
      }
    }
  }
  for (const name of PROTOCOL_VARIABLES) {
    const value = env[name]?.trim();
    if (value && !PROTOCOLS.includes(value))
      return `${name}="${value}" is not an OTLP protocol; use ${PROTOCOLS.join(", ")}`;
  }
  for (const name of ENDPOINT_VARIABLES) {
    const value = env[name]?.trim();
    if (!value) continue;
    let protocol: string | undefined;
    try {
      protocol = new URL(value).protocol;
    } catch {
      protocol = undefined;
    }
    if (protocol !== "http:" && protocol !== "https:") {
      return `${name}="${value}" is not an http(s) URL; use one such as http://localhost:4318`;
    }
  }
  const level = env.OTEL_LOG_LEVEL?.trim().toLowerCase();
  if (level && !LOG_LEVELS.includes(level))
    return `OTEL_LOG_LEVEL="${level}" is not a level; use ${LOG_LEVELS.join(", ")}`;
  return undefined;
}

export interface OpenTelemetry {
  /** Sends what is buffered (spans, metrics) and stops the SDK; gives up after `timeoutMs`. */
  shutdown(timeoutMs?: number): Promise<void>;
}

export interface StartOpenTelemetryOptions {
  /** The SDK's own warnings and errors go here, never to stdout. */
  logger: Logger;
  /** service.name and service.version unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES say otherwise. */
  serviceName: string;
  serviceVersion: string;
  /** Metric readers to use instead of the OTEL_METRICS_EXPORTER ones (toolshed-http --metrics). */
  metricReaders?: IMetricReader[];
  env?: Env;
}

/**
 * Starts the OpenTelemetry Node SDK, which reads OTEL_* itself (exporters, endpoints, resource,
 * propagators, sampler). Loaded on demand: a server not asked for it loads none of it.
 */
export async function startOpenTelemetry(options: StartOpenTelemetryOptions): Promise<OpenTelemetry> {
  const env = options.env ?? process.env;
  const [{ NodeSDK, resources }, api] = await Promise.all([
    import("@opentelemetry/sdk-node"),
    import("@opentelemetry/api"),
  ]);
  // The SDK's diagnostics go to the server's stderr logger, at warn unless OTEL_LOG_LEVEL says
  // otherwise. Given OTEL_LOG_LEVEL, the SDK would install a console logger instead, which writes
  // info and debug to stdout (the protocol channel of toolshed-stdio): it does not see the variable.
  api.diag.setLogger(diagLogger(options.logger), {
    logLevel: diagLevel(api.DiagLogLevel, env.OTEL_LOG_LEVEL),
    suppressOverrideMessage: true,
  });
  const level = process.env.OTEL_LOG_LEVEL;
  delete process.env.OTEL_LOG_LEVEL;
  let sdk: InstanceType<typeof NodeSDK>;
  try {
    sdk = new NodeSDK({
      // Ours first: OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES are detected later and win.
      resource: resources.defaultResource().merge(
        resources.resourceFromAttributes({
          "service.name": options.serviceName,
          "service.version": options.serviceVersion,
        }),
      ),
      ...(options.metricReaders ? { metricReaders: options.metricReaders } : {}),
    });
  } finally {
    if (level !== undefined) process.env.OTEL_LOG_LEVEL = level;
  }
  sdk.start();
  let stopping: Promise<void> | undefined;
  return {
    shutdown(timeoutMs = 5_000) {
      stopping ??= (async () => {
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<void>((resolve) => {
          timer = setTimeout(() => {
            options.logger.warn({ timeoutMs }, "OpenTelemetry did not flush in time; some spans may be lost");
            resolve();
          }, timeoutMs);
          timer.unref();
        });
        const flushed = sdk.shutdown().catch((error: unknown) => {
          options.logger.warn({ err: error }, "OpenTelemetry shutdown failed");
        });
        await Promise.race([flushed, late]);
        clearTimeout(timer);
        // Process-wide registrations: a later start in the same process begins afresh.
        api.trace.disable();
        api.metrics.disable();
        api.propagation.disable();
        api.context.disable();
        api.diag.disable();
      })();
      return stopping;
    },
  };
}

type DiagLevels = typeof import("@opentelemetry/api").DiagLogLevel;

function diagLevel(levels: DiagLevels, raw: string | undefined): DiagLevels[keyof DiagLevels] {
  switch (raw?.trim().toLowerCase()) {
    case "none":
      return levels.NONE;
    case "error":
      return levels.ERROR;
    case "info":
      return levels.INFO;
    case "debug":
      return levels.DEBUG;
    case "verbose":
      return levels.VERBOSE;
    case "all":
      return levels.ALL;
    default:
      return levels.WARN;
  }
}

function diagLogger(logger: Logger) {
  const write =
    (level: "error" | "warn" | "info" | "debug") =>
    (message: string, ...args: unknown[]) =>
      logger[level](
        { component: "opentelemetry", ...(args.length > 0 ? { details: args.map((arg) => describe(arg)) } : {}) },
        message,
      );
  return {
    error: write("error"),
    warn: write("warn"),
    info: write("info"),
    debug: write("debug"),
    verbose: write("debug"),
  };
}

function describe(value: unknown): string {
  if (value instanceof Error) return value.message;
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}
