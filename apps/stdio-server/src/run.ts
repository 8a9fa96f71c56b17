import { PassThrough } from "node:stream";
import { DatabaseConnectError, type OpenedPacks, openPacks, PackConfigError } from "@toolshed/packs";
import { type OpenTelemetry, startOpenTelemetry } from "@toolshed/packs/telemetry";
import {
  createLogger,
  createServer,
  PostgresTaskStore,
  SqliteTaskStore,
  StdioTransport,
  type ToolshedServer,
} from "@toolshed/server";
import { BIN_NAME, type StdioConfig, StdioUsageError } from "./args.js";
import { InFlightTransport } from "./in-flight.js";
import { packageVersion } from "./version.js";

export interface RunStdioOptions {
  /** Where requests come from (default process.stdin). */
  stdin?: NodeJS.ReadableStream;
  /** Where answers go (default process.stdout); nothing else is written there. */
  stdout?: NodeJS.WritableStream;
  /** Where JSON log lines go (default stderr, fd 2). */
  logDestination?: number | NodeJS.WritableStream;
  /** Stop on SIGTERM and SIGINT (default true); a second signal skips the grace period. */
  handleSignals?: boolean;
  /** How long unanswered requests may still finish when stopping, in ms (default 5000). */
  graceMs?: number;
}

export interface RunningStdioServer {
  readonly server: ToolshedServer;
  /** Resolves with the reason once the server has stopped and the database is closed. */
  readonly stopped: Promise<string>;
  /** Stops reading, lets unanswered requests finish (up to the grace period), closes everything. */
  stop(reason?: string): Promise<string>;
}

// A database that cannot be used is a start-up refusal (exit 2) with openPacks' message, as in
// toolshed-http; anything else is a fault (exit 1).
function asUsageError(error: unknown): StdioUsageError | undefined {
  if (error instanceof PackConfigError || error instanceof DatabaseConnectError) {
    return new StdioUsageError(error.message);
  }
  return undefined;
}

/**
 * Serves the configured packs over stdio until stdin closes, a signal arrives or `stop()` is
 * called. Throws StdioUsageError when the database cannot be used.
 */
export async function runStdioServer(config: StdioConfig, options: RunStdioOptions = {}): Promise<RunningStdioServer> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const graceMs = options.graceMs ?? 5000;
  const version = packageVersion();
  const logger = createLogger({ level: config.logLevel, destination: options.logDestination ?? 2, name: BIN_NAME });

  // Before the server exists: its tracer and meters come from the global providers set here.
  const telemetry: OpenTelemetry | undefined = config.openTelemetry
    ? await startOpenTelemetry({ logger, serviceName: BIN_NAME, serviceVersion: version })
    : undefined;

  let opened: OpenedPacks;
  try {
    opened = await openPacks({
      db: config.db,
      ...(config.databaseUrl === undefined ? {} : { databaseUrl: config.databaseUrl }),
      ...(config.sqliteDriver === undefined ? {} : { sqliteDriver: config.sqliteDriver }),
      packs: config.packs,
      demo: config.demo,
      // Read-only tools only: the database is opened read-only too, so nothing is written to it.
      readOnly: config.readOnly,
    });
  } catch (error) {
    await telemetry?.shutdown();
    throw asUsageError(error) ?? error;
  }
  let server: ToolshedServer;
  try {
    const taskStore = opened.tasksPostgres
      ? await PostgresTaskStore.open(opened.tasksPostgres)
      : opened.tasksDatabase && new SqliteTaskStore(opened.tasksDatabase);
    server = createServer({
      name: "toolshed",
      version,
      packs: opened.packs,
      readOnly: config.readOnly,
      ...(config.strictArguments ? { coerce: false } : {}),
      // Tasks live in the packs' database, next to their tables.
      ...(taskStore ? { tasks: { store: taskStore } } : {}),
      logger,
    });
  } catch (error) {
    await opened.close();
    await telemetry?.shutdown();
    throw error;
  }

  // The transport reads a stream this module ends, so answers still in flight when stdin
  // closes are written before the transport shuts.
  const input = new PassThrough();
  const transport = new InFlightTransport(new StdioTransport({ stdin: input, stdout }));
  let force: () => void = () => {};
  const forced = new Promise<void>((resolve) => {
    force = resolve;
  });
  let stopping: Promise<string> | undefined;
  let settle: { resolve: (reason: string) => void; reject: (error: unknown) => void } | undefined;
  const stopped = new Promise<string>((resolve, reject) => {
    settle = { resolve, reject };
  });

  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal, pending: transport.pending }, "second signal: stopping without waiting");
      force();
    } else void stop(signal);
  };
  const onStdinEnd = () => void stop("stdin closed");
  const onStdinError = (error: Error) => {
    logger.warn({ err: error }, "stdin failed");
    void stop("stdin failed");
  };
  const onStdoutError = (error: Error) => {
    // Nobody reads the answers any more, so there is nothing to wait for.
    logger.warn({ err: error }, "stdout failed");
    force();
    void stop("stdout failed");
  };

  const detach = () => {
    stdin.unpipe(input);
    stdin.off("end", onStdinEnd);
    stdin.off("error", onStdinError);
    stdout.off("error", onStdoutError);
    process.off("SIGTERM", onSignal);
    process.off("SIGINT", onSignal);
    stdin.pause();
  };

  const finish = async (reason: string): Promise<string> => {
    stdin.unpipe(input);
    // A last line sent without its newline is still a request: end it, so it is read and answered.
    input.write("\n");
    // Lets lines already read reach the transport, so their requests count as pending.
    await new Promise((resolve) => setImmediate(resolve));
    const waiting = transport.pending;
    logger.info({ reason, pending: waiting }, "stopping");
    if (waiting > 0) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      });
      await Promise.race([transport.idle(), timeout, forced]);
      clearTimeout(timer);
      if (transport.pending > 0) logger.warn({ pending: transport.pending }, "stopped with unanswered requests");
    }
    try {
      await server.close();
      input.end();
      await opened.close();
      // Last: spans of the calls just answered are flushed to the collector.
      await telemetry?.shutdown();
    } finally {
      detach();
    }
    logger.info({ reason }, "stopped");
    return reason;
  };

  const stop = (reason = "stopped"): Promise<string> => {
    if (!stopping) {
      stopping = finish(reason);
      stopping.then(settle?.resolve, settle?.reject);
    }
    return stopping;
  };

  try {
    await server.connect(transport);
  } catch (error) {
    await opened.close();
    await telemetry?.shutdown();
    throw error;
  }
  const previous = transport.onclose;
  transport.onclose = () => {
    previous?.();
    void stop("connection closed");
  };

  stdin.on("end", onStdinEnd);
  stdin.on("error", onStdinError);
  stdout.on("error", onStdoutError);
  if (options.handleSignals ?? true) {
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
  }
  stdin.pipe(input, { end: false });

  logger.info(
    {
      version,
      // The URL may hold a password: the log names the database kind only.
      ...(opened.database === "postgres"
        ? { database: "postgres" }
        : { db: config.db, sqliteDriver: opened.sqliteDriver }),
      packs: opened.names,
      readOnly: config.readOnly,
      demo: config.demo,
      ...(telemetry ? { openTelemetry: true } : {}),
      tools: server.runtime.listTools(server.runtime.viewFor(undefined)).length,
    },
    "ready on stdio",
  );

  return { server, stopped, stop };
}
