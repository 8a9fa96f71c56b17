import type { IncomingMessage, ServerResponse } from "node:http";
import { CancelledError, newErrorRef } from "@toolshed/errors";
import type { Logger, Pack, TextFormat } from "@toolshed/schema";
import { type ChangeBus, createLogger, createServer, type ToolshedServer } from "@toolshed/server";
import { type Context, Hono } from "hono";
import { createAuthenticator, type JwtOptions } from "./auth.js";
import { createDispatcher } from "./dispatcher.js";
import { checkAuthConfigured, checkHostAndOrigin, resolveOriginPolicy } from "./guards.js";
import { HttpErrorCode, jsonResponse, jsonRpcErrorResponse } from "./http-errors.js";
import { InFlight } from "./in-flight.js";
import { type McpRouteOptions, mcpRoute } from "./mcp-route.js";
import { createNodeListener } from "./node-listener.js";
import { createRateLimiter, type RateLimiter } from "./rate-limit.js";
import { requestAwareLogger } from "./request-context.js";
import { requestLog } from "./request-log.js";
import { Sessions } from "./sessions.js";
import type { StaticToken } from "./tokens.js";
import { VERSION } from "./version.js";
import { RESOURCE_METADATA_PATH, resourceMetadata } from "./well-known.js";

export interface HttpAppOptions {
  /** Packs to serve; a Toolshed server is built for them (and closed with the app). */
  packs?: readonly Pack[];
  /** Or an existing Toolshed server to serve (the app does not close it). */
  server?: ToolshedServer;
  name?: string;
  version?: string;
  title?: string;
  instructions?: string;
  /** Publish and accept only read-only tools (C14). */
  readOnly?: boolean;
  textFormat?: TextFormat;
  /** Tool call timeout in ms (the runtime's default is 30 000). */
  toolTimeoutMs?: number;
  /** JSON-lines logger; pino on stderr by default. */
  logger?: Logger;
  /** Stateful sessions on the SDK transport instead of the stateless dispatcher. */
  sessions?: boolean;
  /** Close sessions idle this long (ms, default 30 min). */
  sessionIdleTimeoutMs?: number;
  maxSessions?: number;
  /** Sessions one token (or, without auth, one address) may hold (default 100); see Sessions. */
  sessionsPerClient?: number;
  /** Static bearer tokens. */
  tokens?: readonly StaticToken[];
  /** JWTs checked against a JWKS. */
  jwt?: JwtOptions;
  /** Address the server is bound to: decides the default Host/Origin lists and whether auth may be off. */
  host?: string;
  /** Bound port, for the default Host list; without it loopback names match any port. */
  port?: number;
  /** Host header values accepted (`name` or `name:port`); `*` accepts any. */
  allowedHosts?: readonly string[];
  /** Origin header values accepted (`http://name:port`, `:*` for any port); `*` accepts any. */
  allowedOrigins?: readonly string[];
  /** Largest request body in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /** Requests per minute per token, or per address without one (default 600; 0 = off). */
  rateLimit?: number;
  /** A limiter to use instead of the in-memory one (e.g. createRedisRateLimiter); closed by its owner. */
  rateLimiter?: RateLimiter;
  /** Readiness probe for /readyz (e.g. the database answers). */
  ready?: () => boolean | Promise<boolean>;
  /** Where resource changes are published (e.g. createRedisChangeBus, shared by instances); closed by its owner. */
  changes?: ChangeBus;
  /**
   * HMAC key for 2026-07-28 multi round-trip `requestState` (at least 16 bytes); instances behind one
   * load balancer must share it. Default: a random key per process.
   */
  stateSecret?: string;
  /** Public base URL (scheme://host[:port]) when behind a proxy; otherwise taken from the request. */
  publicUrl?: string;
  /** Path of the MCP endpoint (default /mcp). */
  path?: string;
}

export interface HttpApp {
  /** The Hono app: mount it, or serve `app.fetch` with @hono/node-server. */
  app: Hono;
  fetch(request: Request, env?: unknown): Promise<Response>;
  /**
   * The app as a node:http request listener (`http.createServer(app.nodeListener)`). Stateless
   * POSTs to the MCP path are answered on node:http directly, the rest through `app`.
   */
  nodeListener(request: IncomingMessage, response: ServerResponse): void;
  server: ToolshedServer;
  /** Requests being answered now. */
  readonly inFlight: number;
  /** Stops taking requests (503, /readyz fails), waits up to `graceMs` for in-flight ones, cancels the rest, closes sessions and the server. */
  close(options?: { graceMs?: number }): Promise<void>;
}

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
export const DEFAULT_RATE_LIMIT = 600;
export const DEFAULT_SESSION_IDLE_MS = 30 * 60 * 1000;

/** The Streamable HTTP app: /mcp, /healthz, /readyz and the OAuth resource metadata. */
export function createHttpApp(options: HttpAppOptions): HttpApp {
  const host = options.host ?? "127.0.0.1";
  const auth = createAuthenticator({
    ...(options.tokens ? { tokens: options.tokens } : {}),
    ...(options.jwt ? { jwt: options.jwt } : {}),
  });
  checkAuthConfigured(host, auth !== undefined);
  const baseLogger = options.logger ?? createLogger();
  const logger = requestAwareLogger(baseLogger);
  const name = options.name ?? "toolshed";
  const ownsServer = options.server === undefined;
  const server =
    options.server ??
    createServer({
      name,
      version: options.version ?? VERSION,
      packs: options.packs ?? [],
      logger,
      ...(options.title === undefined ? {} : { title: options.title }),
      ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
      ...(options.readOnly === undefined ? {} : { readOnly: options.readOnly }),
      ...(options.textFormat === undefined ? {} : { textFormat: options.textFormat }),
      ...(options.toolTimeoutMs === undefined ? {} : { timeoutMs: options.toolTimeoutMs }),
      ...(options.changes === undefined ? {} : { changes: options.changes }),
      ...(options.stateSecret === undefined ? {} : { requestState: { secret: options.stateSecret } }),
    });
  const path = options.path ?? "/mcp";
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const inFlight = new InFlight();
  const sessions = options.sessions
    ? new Sessions({
        server,
        logger,
        maxBodyBytes,
        idleTimeoutMs: options.sessionIdleTimeoutMs ?? DEFAULT_SESSION_IDLE_MS,
        ...(options.maxSessions === undefined ? {} : { maxSessions: options.maxSessions }),
        ...(options.sessionsPerClient === undefined ? {} : { sessionsPerClient: options.sessionsPerClient }),
      })
    : undefined;
  const dispatch = createDispatcher(server.core);
  const policy = resolveOriginPolicy({
    host,
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
    ...(options.allowedOrigins ? { allowedOrigins: options.allowedOrigins } : {}),
  });
  const publicUrl = options.publicUrl?.replace(/\/+$/, "");
  const baseUrl = (url: string) => publicUrl ?? new URL(url).origin;
  let closing: Promise<void> | undefined;

  const app = new Hono();
  app.use("*", requestLog(baseLogger));
  app.get("/healthz", (c) => c.json({ status: "ok" }));
  app.get("/readyz", async (c) => {
    if (closing) return c.json({ status: "shutting down" }, 503);
    let ok = false;
    try {
      ok = (await options.ready?.()) ?? true;
    } catch {
      ok = false;
    }
    return ok ? c.json({ status: "ready" }) : c.json({ status: "not ready" }, 503);
  });
  if (auth) {
    const metadata = (c: Context) => {
      const foreign = checkHostAndOrigin(c.req.raw.headers, policy, c.req.url);
      if (foreign) return foreign;
      return jsonResponse(200, resourceMetadata(baseUrl(c.req.url), path, name, options.jwt?.issuer));
    };
    app.get(RESOURCE_METADATA_PATH, metadata);
    app.get(`${RESOURCE_METADATA_PATH}${path}`, metadata);
  }
  const route: McpRouteOptions = {
    policy,
    auth,
    limiter: options.rateLimiter ?? createRateLimiter(options.rateLimit ?? DEFAULT_RATE_LIMIT),
    dispatch,
    sessions,
    inFlight,
    maxBodyBytes,
    baseUrl,
    isClosing: () => closing !== undefined,
    logger,
  };
  app.all(path, mcpRoute(route));
  app.notFound(() => jsonRpcErrorResponse(404, HttpErrorCode.Transport, `Not Found: the MCP endpoint is ${path}`));
  app.onError((error) => {
    const ref = newErrorRef();
    logger.error({ ref, err: error }, "unhandled error answering an HTTP request");
    return jsonRpcErrorResponse(500, HttpErrorCode.InternalError, `Internal error (ref ${ref})`);
  });

  const close = async (graceMs: number) => {
    // Listen streams would otherwise hold the grace period: end them with their final result.
    server.core.close();
    const idle = await inFlight.whenIdle(graceMs);
    if (!idle) {
      logger.warn(
        { inFlight: inFlight.count, graceMs },
        "shutdown deadline passed; cancelling the calls still running",
      );
      inFlight.abortAll(new CancelledError("the server is shutting down"));
    }
    await sessions?.close();
    if (!idle) await inFlight.whenIdle(2_000);
    if (ownsServer) await server.close();
  };

  const fetch = (request: Request, env?: unknown) => Promise.resolve(app.fetch(request, env));
  return {
    app,
    fetch,
    nodeListener: createNodeListener({ path, route, requestLogger: baseLogger, fetch }),
    server,
    get inFlight() {
      return inFlight.count;
    },
    close(closeOptions = {}) {
      closing ??= close(closeOptions.graceMs ?? 10_000);
      return closing;
    },
  };
}
