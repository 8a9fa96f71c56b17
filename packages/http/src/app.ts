import type { IncomingMessage, ServerResponse } from "node:http";
import type { JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import { CancelledError } from "@toolshed/errors";
import type { AuthInfo, Logger, Pack, TextFormat } from "@toolshed/schema";
import {
  type CanAccess,
  type ChangeBus,
  createLogger,
  createServer,
  type TaskOptions,
  type ToolshedServer,
} from "@toolshed/server";
import { DEFAULT_MAX_BATCH_BYTES, insufficientScopeError, type RequestAccess } from "@toolshed/server/internal";
import { createAuthenticator, type JwtOptions } from "./auth.js";
import { type CorsOptions, corsPolicy } from "./cors.js";
import { createDispatcher } from "./dispatcher.js";
import { createFetchHandler, type FetchEnv } from "./fetch-handler.js";
import { checkAuthConfigured, resolveOriginPolicy } from "./guards.js";
import { jsonResponse } from "./http-errors.js";
import { InFlight } from "./in-flight.js";
import type { IntrospectionOptions } from "./introspection.js";
import { ListenQuota } from "./listen-quota.js";
import { createNodeListener } from "./node-listener.js";
import { Pipeline, type ReadinessReport } from "./pipeline.js";
import { createRateLimiter, type RateLimiter } from "./rate-limit.js";
import { requestAwareLogger } from "./request-context.js";
import { logRequests, type RequestSummary } from "./request-log.js";
import { Sessions } from "./sessions.js";
import type { StaticToken } from "./tokens.js";
import { VERSION } from "./version.js";
import { resourceMetadata, wwwAuthenticate } from "./well-known.js";

export interface HttpAppOptions {
  /** Packs to serve; a Toolshed server is built for them (and closed with the app). */
  packs?: readonly Pack[];
  /** The tasks extension for the server built here (createServer's `tasks`). */
  tasks?: TaskOptions | false;
  /** Or an existing Toolshed server to serve (the app does not close it). */
  server?: ToolshedServer;
  name?: string;
  version?: string;
  title?: string;
  instructions?: string;
  /** Publish and accept only read-only tools (C14). */
  readOnly?: boolean;
  /** Lax coercion of tool arguments ("5" for 5; default true); false takes arguments only as sent. */
  coerce?: boolean;
  /**
   * Per-caller rules that scopes cannot express: false hides a tool, resource, template or prompt
   * from that caller (left out of lists; a call is answered as if it did not exist). `requiredScopes`
   * on definitions and packs are checked on top of it.
   */
  canAccess?: CanAccess;
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
  /**
   * 2026-07-28 `subscriptions/listen` streams one token (or, without auth, one address) may hold
   * open at once (default 16); one more is answered 429 until one of them ends.
   */
  listensPerClient?: number;
  /** Static bearer tokens. */
  tokens?: readonly StaticToken[];
  /** JWTs checked against a JWKS. */
  jwt?: JwtOptions;
  /** Opaque tokens checked at the authorization server's introspection endpoint (RFC 7662). */
  introspection?: IntrospectionOptions;
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
  /**
   * Largest JSON of one tool result in bytes (default 4 MiB): a larger result is answered with a
   * `too_large` tool error telling the model to ask for less. 0 turns it off. Ignored with `server`
   * (give it to createServer instead).
   */
  maxResultBytes?: number;
  /**
   * Largest JSON answer to one batch POST in bytes (default 16 MiB): calls whose answers would
   * take it past the limit get a `too_large` error each, the others are answered. 0 turns it off.
   */
  maxBatchBytes?: number;
  /**
   * A connection whose client has not taken its answer this long after it was written (or, on an
   * SSE stream, has not drained a write) is closed and logged (default 30 000 ms; 0 turns it off).
   * The node:http listener watches the socket; the Fetch handler watches the host taking the body's
   * chunks (a JSON answer over 64 KiB goes out in chunks), which works on hosts that wait for the
   * client before taking more, as @hono/node-server does.
   */
  writeTimeoutMs?: number;
  /** Requests per minute per token, or per address without one (default 600; 0 = off). */
  rateLimit?: number;
  /** A limiter to use instead of the in-memory one (e.g. createRedisRateLimiter); closed by its owner. */
  rateLimiter?: RateLimiter;
  /**
   * Readiness probe for /readyz (e.g. the database answers): a boolean, or a report whose
   * `database` and `reason` are shown in the answer (such as a busy database, ready all the same).
   */
  ready?: () => boolean | ReadinessReport | Promise<boolean | ReadinessReport>;
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
  /** Browser clients allowed from these origins (CORS); off by default. */
  cors?: CorsOptions;
  /** Called once per request after its answer was sent; default: a JSON log line ("request") on `logger`. */
  onRequest?: (summary: RequestSummary) => void;
}

export interface HttpApp {
  /**
   * The app as a Fetch handler: Hono (`app.all("/mcp", (c) => http.fetch(c.req.raw, c.env))`), Bun,
   * Deno, workers. Pass `{ address }` (or Hono's `c.env` on @hono/node-server) for per-address limits.
   */
  fetch(request: Request, env?: FetchEnv): Promise<Response>;
  /** The app as a node:http request listener: `http.createServer(app.nodeListener)`, or an Express or Fastify route. */
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
  checkAuthConfigured(
    host,
    (options.tokens?.length ?? 0) > 0 || options.jwt !== undefined || options.introspection !== undefined,
  );
  // Checked before anything is opened: a bad value leaves nothing to close.
  const listens = new ListenQuota(options.listensPerClient);
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
      ...(options.coerce === undefined ? {} : { coerce: options.coerce }),
      ...(options.canAccess === undefined ? {} : { canAccess: options.canAccess }),
      ...(options.textFormat === undefined ? {} : { textFormat: options.textFormat }),
      ...(options.toolTimeoutMs === undefined ? {} : { timeoutMs: options.toolTimeoutMs }),
      ...(options.maxResultBytes === undefined ? {} : { maxResultBytes: options.maxResultBytes }),
      ...(options.changes === undefined ? {} : { changes: options.changes }),
      ...(options.stateSecret === undefined ? {} : { requestState: { secret: options.stateSecret } }),
      ...(options.tasks === undefined ? {} : { tasks: options.tasks }),
    });
  // Fixed once the packs are: the authenticator and the resource metadata share one list.
  const scopesSupported = server.runtime.scopesSupported();
  const auth = createAuthenticator({
    ...(options.tokens ? { tokens: options.tokens } : {}),
    ...(options.jwt ? { jwt: options.jwt } : {}),
    ...(options.introspection ? { introspection: options.introspection } : {}),
    scopesSupported,
    logger: baseLogger,
  });
  const path = options.path ?? "/mcp";
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const inFlight = new InFlight();
  const sessions = options.sessions
    ? new Sessions({
        server,
        logger,
        maxBodyBytes,
        maxBatchBytes: options.maxBatchBytes ?? DEFAULT_MAX_BATCH_BYTES,
        idleTimeoutMs: options.sessionIdleTimeoutMs ?? DEFAULT_SESSION_IDLE_MS,
        ...(options.maxSessions === undefined ? {} : { maxSessions: options.maxSessions }),
        ...(options.sessionsPerClient === undefined ? {} : { sessionsPerClient: options.sessionsPerClient }),
      })
    : undefined;
  const dispatch = createDispatcher(server.core);
  const cors = options.cors ? corsPolicy(options.cors) : undefined;
  const policy = resolveOriginPolicy({
    host,
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
    ...(options.allowedOrigins ? { allowedOrigins: options.allowedOrigins } : {}),
  });
  // A page origin allowed by CORS passes the Origin check too.
  if (cors && policy.allowedOrigins) policy.allowedOrigins = [...policy.allowedOrigins, ...cors.origins];
  const publicUrl = options.publicUrl?.replace(/\/+$/, "");
  const baseUrl = (url: string) => publicUrl ?? new URL(url).origin;
  let closing: Promise<void> | undefined;
  const pipeline = new Pipeline({
    path,
    policy,
    auth,
    limiter: options.rateLimiter ?? createRateLimiter(options.rateLimit ?? DEFAULT_RATE_LIMIT),
    dispatch,
    headerParams: (tool) => server.runtime.tools.get(tool)?.headerParams,
    sessions,
    inFlight,
    maxBodyBytes,
    ...(options.maxBatchBytes === undefined ? {} : { maxBatchBytes: options.maxBatchBytes }),
    baseUrl,
    isClosing: () => closing !== undefined,
    logger,
    ready: options.ready ?? (() => true),
    ...(auth
      ? {
          metadata: (base: string) =>
            resourceMetadata(base, path, name, options.jwt?.issuer ?? options.introspection?.issuer, scopesSupported),
        }
      : {}),
    ...(cors ? { cors } : {}),
    ...(server.runtime.filtersByCaller ? { checkScopes: scopeChallenge(server) } : {}),
    onRequest: options.onRequest ?? logRequests(baseLogger),
    listens,
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

  return {
    fetch: createFetchHandler(pipeline, {
      logger,
      ...(options.writeTimeoutMs === undefined ? {} : { writeTimeoutMs: options.writeTimeoutMs }),
    }),
    nodeListener: createNodeListener(pipeline, {
      logger,
      ...(options.writeTimeoutMs === undefined ? {} : { writeTimeoutMs: options.writeTimeoutMs }),
    }),
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

/**
 * The spec's step-up challenge: a lone request for something the caller may see but lacks a scope
 * for is 403 `insufficient_scope`, naming every scope the operation needs, so the client can ask
 * for a token with them. Hidden definitions are left to the core (answered as unknown).
 */
function scopeChallenge(server: ToolshedServer) {
  return (
    request: JSONRPCRequest,
    authInfo: AuthInfo | undefined,
    baseUrl: string,
  ): Response | RequestAccess | undefined => {
    const access = server.core.accessOfRequest(request, authInfo);
    if (!access || access.ok || access.hidden) return access;
    const error = insufficientScopeError(access.action, access, authInfo);
    const body = {
      jsonrpc: "2.0",
      id: request.id,
      error: { code: error.code, message: error.message, data: error.data },
    };
    const challenge = wwwAuthenticate(baseUrl, "insufficient_scope", error.message, access.requiredScopes.join(" "));
    return jsonResponse(403, body, { "WWW-Authenticate": challenge });
  };
}
