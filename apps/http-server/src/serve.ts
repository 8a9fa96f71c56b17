import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createHttpApp, type HttpApp, type HttpAppOptions, HttpConfigError, type RateLimiter } from "@toolshed/http";
import {
  answerClientErrors,
  checkAuthConfigured,
  checkHostAndOrigin,
  resolveOriginPolicy,
} from "@toolshed/http/internal";
import { DatabaseConnectError, openPacks, PackConfigError } from "@toolshed/packs";
import { type OpenTelemetry, startOpenTelemetry } from "@toolshed/packs/telemetry";
import type { Logger, Pack } from "@toolshed/schema";
import { createLogger, PostgresTaskStore, SqliteTaskStore } from "@toolshed/server";
import type { HttpServerConfig } from "./args.js";
import { loadSecret, loadTokens } from "./load-tokens.js";
import { createPrometheusMetrics, isMetricsRequest, METRICS_PATH } from "./metrics.js";
import { createRedisChangeBus, DEFAULT_CHANGES_CHANNEL } from "./redis-changes.js";
import { createRedisRateLimiter } from "./redis-rate-limit.js";
import { VERSION } from "./version.js";

export interface StartHttpServerOptions extends Partial<Omit<HttpServerConfig, "command">> {
  /** Packs served next to the opened ones (your own tools, or test doubles). */
  extraPacks?: readonly Pack[];
  /** JSON-lines logger; pino on stderr at `logLevel` by default. */
  logger?: Logger;
  /** Shut down gracefully on SIGTERM and SIGINT, then exit the process with code 0. */
  handleSignals?: boolean;
  /** More options for the app (instructions, tool timeout…). */
  app?: Omit<HttpAppOptions, "packs" | "host" | "port">;
}

export interface RunningHttpServer {
  /** The MCP endpoint, e.g. http://127.0.0.1:3000/mcp. */
  url: string;
  /** Where Prometheus scrapes, with `metrics` (e.g. http://127.0.0.1:3000/metrics). */
  metricsUrl?: string;
  port: number;
  http: HttpApp;
  /** Stops accepting connections, lets running calls finish (shutdown timeout), closes sessions and stores. */
  close(): Promise<void>;
}

/** Opens the packs, then serves them over Streamable HTTP on node:http (see HttpApp.nodeListener). */
export async function startHttpServer(options: StartHttpServerOptions = {}): Promise<RunningHttpServer> {
  const host = options.host ?? "127.0.0.1";
  const tokens = loadTokens(options.tokensFile, options.tokens);
  const jwt =
    options.jwksUrl && options.jwtIssuer && options.jwtAudience
      ? {
          jwksUrl: options.jwksUrl,
          issuer: options.jwtIssuer,
          audience: options.jwtAudience,
          ...jwksLimitsOf(options),
          ...(options.clockToleranceSec === undefined ? {} : { clockToleranceSec: options.clockToleranceSec }),
        }
      : undefined;
  const introspection = introspectionOf(options);
  checkAuthConfigured(
    host,
    tokens.length > 0 || jwt !== undefined || introspection !== undefined,
    "add --tokens-file PATH (or TOOLSHED_TOKENS), --jwks-url URL or --introspection-url URL",
  );
  const logger = options.logger ?? createLogger({ level: options.logLevel ?? "info" });
  // Before the app exists: its meters and tracers come from the global providers set here.
  const wantsMetrics = (options.metrics ?? false) || options.metricsPort !== undefined;
  const prometheus = wantsMetrics ? await createPrometheusMetrics({ register: !options.openTelemetry }) : undefined;
  const telemetry: OpenTelemetry | undefined = options.openTelemetry
    ? await startOpenTelemetry({
        logger,
        serviceName: "toolshed-http",
        serviceVersion: VERSION,
        ...(prometheus ? { metricReaders: [prometheus.reader] } : {}),
      })
    : undefined;
  if (telemetry && prometheus && process.env.OTEL_METRICS_EXPORTER !== undefined) {
    logger.warn({}, "--metrics serves the metrics at /metrics; OTEL_METRICS_EXPORTER is not used with it");
  }
  const stopTelemetry = async () => {
    await telemetry?.shutdown();
    await prometheus?.shutdown();
  };
  const db = options.db ?? ":memory:";
  let opened: Awaited<ReturnType<typeof openPacks>>;
  try {
    opened = await openPacks({
      db,
      ...pick(options, ["databaseUrl", "databaseSchema", "packs", "sqliteDriver"]),
      demo: options.demo ?? false,
      // Read-only tools only: the database is opened read-only too, so nothing is written to it.
      readOnly: options.readOnly ?? false,
    });
  } catch (error) {
    // openPacks says what is wrong with a database and what would work, as toolshed-stdio prints it.
    await stopTelemetry();
    if (error instanceof DatabaseConnectError || error instanceof PackConfigError) {
      throw new HttpConfigError(error.message);
    }
    throw error;
  }
  let limiter: RateLimiter | undefined;
  let changes: Awaited<ReturnType<typeof createRedisChangeBus>> | undefined;
  if (options.redisUrl !== undefined) {
    limiter = await createRedisRateLimiter({
      url: options.redisUrl,
      perMinute: options.rateLimit ?? 600,
      ...(options.redisPrefix === undefined ? {} : { keyPrefix: options.redisPrefix }),
      logger,
    });
    changes = await createRedisChangeBus({
      url: options.redisUrl,
      channel: options.redisPrefix === undefined ? DEFAULT_CHANGES_CHANNEL : `${options.redisPrefix}:changes`,
      logger,
    });
  }
  const release = async () => {
    await limiter?.close();
    await changes?.close();
    await opened.close();
    // Last: spans of the calls that just finished are flushed to the collector.
    await stopTelemetry();
  };

  let http: HttpApp | undefined;
  const requestTimeout = options.requestTimeoutMs ?? 30_000;
  const startingUp = (_req: IncomingMessage, res: ServerResponse) => {
    const body = JSON.stringify({
      jsonrpc: "2.0",
      error: { code: -32000, message: "Service Unavailable: starting up" },
      id: null,
    });
    res.writeHead(503, { "content-type": "application/json", "retry-after": "1" }).end(body);
  };
  const server: Server = createServer(
    {
      requestTimeout,
      headersTimeout: Math.min(requestTimeout, 60_000),
      // Node enforces both timeouts only when it checks its connections (every 30 s by default).
      connectionsCheckingInterval: Math.max(250, Math.min(30_000, Math.floor(requestTimeout / 4))),
    },
    // /metrics is routed before the app, whose pipeline knows only /mcp, probes and metadata.
    // Like /readyz it takes no token; --metrics-port moves it off the public port.
    prometheus && options.metricsPort === undefined
      ? (req, res) => {
          if (isMetricsRequest(req)) {
            if (metricsAllowed(req, res, host, options)) prometheus.handle(req, res);
          } else if (http) http.nodeListener(req, res);
          else startingUp(req, res);
        }
      : (req, res) => (http ? http.nodeListener(req, res) : startingUp(req, res)),
  );
  answerClientErrors(server);
  let port: number;
  try {
    port = await listen(server, options.port ?? 3000, host);
  } catch (error) {
    await release();
    throw error;
  }
  let metricsServer: Server | undefined;
  let metricsPort = port;
  if (prometheus && options.metricsPort !== undefined) {
    metricsServer = createServer((req, res) => {
      if (isMetricsRequest(req)) {
        if (metricsAllowed(req, res, host, options)) prometheus.handle(req, res);
        return;
      }
      res
        .writeHead(404, { "content-type": "text/plain; charset=utf-8" })
        .end(`Not Found: this port serves only GET ${METRICS_PATH}\n`);
    });
    try {
      metricsPort = await listen(metricsServer, options.metricsPort, host, "--metrics-port");
    } catch (error) {
      server.close();
      await release();
      throw error;
    }
  }
  try {
    const tasks = await tasksIn(opened, options.app?.tasks);
    http = createHttpApp({
      version: VERSION,
      ...options.app,
      packs: [...opened.packs, ...(options.extraPacks ?? [])],
      host,
      port,
      logger,
      ...pick(options, ["readOnly", "sessions", "sessionIdleTimeoutMs", "sessionsPerClient", "listensPerClient"]),
      ...(options.strictArguments ? { coerce: false } : {}),
      ...pick(options, ["allowedHosts", "allowedOrigins"]),
      ...pick(options, ["maxBodyBytes", "rateLimit", "publicUrl"]),
      ...pick(options, ["maxResultBytes", "maxBatchBytes", "writeTimeoutMs"]),
      tokens,
      ...(jwt ? { jwt } : {}),
      ...(introspection ? { introspection } : {}),
      ...(options.corsOrigins ? { cors: { origins: options.corsOrigins } } : {}),
      ...(limiter ? { rateLimiter: limiter } : {}),
      ...(changes ? { changes } : {}),
      ...(options.stateSecret === undefined ? {} : { stateSecret: options.stateSecret }),
      ready: () => opened.readiness(),
      tasks,
    });
  } catch (error) {
    server.close();
    metricsServer?.close();
    await release();
    throw error;
  }
  const app = http;
  const origin = (p: number) => `http://${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}:${p}`;
  const url = `${origin(port)}/mcp`;
  const metricsUrl = prometheus ? `${origin(metricsPort)}${METRICS_PATH}` : undefined;
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      let stopped = false;
      const closed = new Promise<void>((resolve) =>
        server.close(() => {
          stopped = true;
          resolve();
        }),
      );
      await app.close({ graceMs: options.shutdownTimeoutMs ?? 10_000 });
      // Answers are written just after their handlers return: let them flush, dropping each
      // keep-alive connection once it is idle, before cutting whatever is left.
      const deadline = Date.now() + 5_000;
      while (!stopped && Date.now() < deadline) {
        server.closeIdleConnections();
        await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 50))]);
      }
      server.closeAllConnections();
      await closed;
      if (metricsServer) {
        const done = new Promise<void>((resolve) => metricsServer?.close(() => resolve()));
        metricsServer.closeAllConnections();
        await done;
      }
      await release();
    })();
    return closing;
  };

  if (options.handleSignals) {
    const onSignal = (signal: NodeJS.Signals) => {
      if (closing) return;
      logger.info({ signal, inFlight: app.inFlight }, "shutting down");
      close().then(
        () => {
          logger.info({}, "stopped");
          process.exit(0);
        },
        (error: unknown) => {
          logger.error({ err: error }, "shutdown failed");
          process.exit(1);
        },
      );
    };
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
  }
  // Handlers first: a supervisor may signal as soon as it reads this line.
  logger.info(
    {
      url,
      mode: options.sessions ? "sessions" : "stateless",
      packs: opened.names,
      database: opened.database,
      ...(opened.sqliteDriver === undefined ? {} : { sqliteDriver: opened.sqliteDriver }),
      rateLimits: limiter ? "redis" : "memory",
      readOnly: options.readOnly ?? false,
      auth: [
        tokens.length > 0 ? `${tokens.length} tokens` : undefined,
        jwt ? "jwt" : undefined,
        introspection ? "introspection" : undefined,
      ].filter(Boolean),
      ...(options.corsOrigins ? { corsOrigins: options.corsOrigins } : {}),
      ...(metricsUrl ? { metrics: metricsUrl } : {}),
      ...(telemetry ? { openTelemetry: true } : {}),
      version: VERSION,
    },
    `listening on ${url}`,
  );

  return { url, ...(metricsUrl ? { metricsUrl } : {}), port, http: app, close };
}

/** --introspection-* as the app's options; the secret from TOOLSHED_INTROSPECTION_CLIENT_SECRET or its file. */
function introspectionOf(options: StartHttpServerOptions): HttpAppOptions["introspection"] {
  const { introspectionUrl: url, introspectionClientId: clientId } = options;
  if (url === undefined) return undefined;
  const clientSecret =
    options.introspectionClientSecretFile === undefined
      ? options.introspectionClientSecret
      : loadSecret(options.introspectionClientSecretFile, "--introspection-client-secret-file");
  if (clientId === undefined || clientSecret === undefined) {
    throw new HttpConfigError(
      "--introspection-url needs --introspection-client-id and TOOLSHED_INTROSPECTION_CLIENT_SECRET (or --introspection-client-secret-file PATH): this server's credentials at the authorization server",
    );
  }
  return {
    url,
    clientId,
    clientSecret,
    ...(options.introspectionIssuer === undefined ? {} : { issuer: options.introspectionIssuer }),
    ...(options.introspectionAudience === undefined ? {} : { audience: options.introspectionAudience }),
    ...(options.clockToleranceSec === undefined ? {} : { clockToleranceSec: options.clockToleranceSec }),
  };
}

/** Tasks live in the packs' database (SQLite file or PostgreSQL), unless the app says otherwise. */
export async function tasksIn(
  opened: Awaited<ReturnType<typeof openPacks>>,
  tasks: HttpAppOptions["tasks"],
): Promise<NonNullable<HttpAppOptions["tasks"]>> {
  if (tasks === false) return false;
  if (tasks?.store) return tasks;
  if (opened.tasksPostgres) return { store: await PostgresTaskStore.open(opened.tasksPostgres), ...tasks };
  return { ...(opened.tasksDatabase ? { store: new SqliteTaskStore(opened.tasksDatabase) } : {}), ...tasks };
}

function jwksLimitsOf(options: StartHttpServerOptions): { jwks?: NonNullable<HttpAppOptions["jwt"]>["jwks"] } {
  const jwks = {
    ...(options.jwksMaxStaleMs === undefined ? {} : { maxStaleMs: options.jwksMaxStaleMs }),
    ...(options.jwksCooldownMs === undefined ? {} : { cooldownMs: options.jwksCooldownMs }),
    ...(options.jwksTimeoutMs === undefined ? {} : { timeoutMs: options.jwksTimeoutMs }),
    ...(options.jwksMaxBytes === undefined ? {} : { maxBytes: options.jwksMaxBytes }),
  };
  return Object.keys(jwks).length > 0 ? { jwks } : {};
}

/**
 * /metrics gets the Host and Origin checks of /mcp (DNS rebinding: a page must not read it
 * through a loopback server either), on the port it was asked on. False when refused (answered).
 */
function metricsAllowed(
  req: IncomingMessage,
  res: ServerResponse,
  host: string,
  options: Pick<HttpServerConfig, "allowedHosts" | "allowedOrigins">,
): boolean {
  const policy = resolveOriginPolicy({
    host,
    ...(req.socket.localPort === undefined ? {} : { port: req.socket.localPort }),
    ...pick(options, ["allowedHosts", "allowedOrigins"]),
  });
  // Every value of a repeated header counts, as on /mcp.
  const headers = { get: (name: string) => req.headersDistinct[name]?.join(", ") ?? null };
  const refused = checkHostAndOrigin(headers, policy);
  if (refused === undefined) return true;
  void refused.text().then((body) => {
    res.writeHead(refused.status, { "content-type": "application/json" }).end(body);
  });
  return false;
}

function listen(server: Server, port: number, host: string, flag = "--port"): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off("listening", onListening);
      if (error.code === "EADDRINUSE") {
        reject(new HttpConfigError(`port ${port} on ${host} is in use; pass ${flag} with a free port, or 0 for any`));
      } else if (error.code === "EACCES") {
        reject(new HttpConfigError(`no permission to listen on ${host}:${port}; use a port above 1023`));
      } else if (error.code === "EADDRNOTAVAIL" || error.code === "ENOTFOUND") {
        reject(new HttpConfigError(`cannot listen on ${host}: not an address of this machine; try 127.0.0.1`));
      } else reject(error);
    };
    const onListening = () => {
      server.off("error", onError);
      resolve((server.address() as AddressInfo).port);
    };
    server.once("error", onError);
    server.once("listening", onListening);
    server.listen(port, host);
  });
}

function pick<T extends object, K extends keyof T>(source: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const key of keys) if (source[key] !== undefined) out[key] = source[key];
  return out;
}
