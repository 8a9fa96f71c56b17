import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { AuthInfo, Logger, Pack, TextFormat } from "@toolshed/schema";
import type { CanAccess } from "./access.js";
import type { ChangeBus } from "./changes.js";
import { Connection, type ConnectOptions, type ServerConnection } from "./connection.js";
import { ProtocolCore } from "./core/protocol-core.js";
import type { TaskOptions } from "./core/tasks.js";
import { createLogger } from "./logger.js";
import { type Middleware, type MiddlewareRegistration, MiddlewareStack, type UseOptions } from "./middleware.js";
import type { RequestStateOptions } from "./request-state.js";
import type { ToolOutcomeListener } from "./runtime/parts.js";
import { Runtime } from "./runtime/runtime.js";

export interface CreateServerOptions {
  name: string;
  version: string;
  title?: string;
  /** Sent to clients at initialize: how to use this server's tools together. */
  instructions?: string;
  packs: readonly Pack[];
  /** Publish and accept only tools marked `readOnlyHint: true` (C14). */
  readOnly?: boolean;
  /** Server-side logger; JSON lines on stderr by default. */
  logger?: Logger;
  /** JSON text of results: two-space indent (`pretty`, default) or `compact` (C1). */
  textFormat?: TextFormat;
  /** Server-wide call timeout in ms (default 30 000); a tool's own `timeoutMs` wins; 0 turns it off. */
  timeoutMs?: number;
  /**
   * Largest JSON of one tool result in bytes (default 4 MiB); a larger result is answered with a
   * `too_large` tool error telling the model to ask for less. 0 turns the check off.
   */
  maxResultBytes?: number;
  /**
   * Lax coercion of tool arguments that fail as sent (default true): `"5"` for a number, `"true"`
   * for a boolean, a JSON string for an object or array, an enum value or argument name in another
   * case or with other separators, wherever only one reading is possible. Each coerced call is
   * logged ("arguments coerced") and counted (`toolshed.tool.argument_coercions`). False turns it
   * off for every tool; a tool's own `coerce: false` turns it off for that tool.
   */
  coerce?: boolean;
  /** Decides from a request's credentials whether it may use only read-only tools (C14). */
  isReadOnlyRequest?: (authInfo: AuthInfo | undefined) => boolean;
  /**
   * Per-caller rules that scopes cannot express: false hides a tool, resource, template or prompt
   * from that caller (left out of lists; a call is answered as if it did not exist). Called with
   * `undefined` for callers without credentials; a throw counts as false and is logged.
   * `requiredScopes` on definitions and packs are checked on top of it.
   */
  canAccess?: CanAccess;
  /**
   * Hears every tools/call's outcome (the "tool call" log line's `outcome`) on requests whose
   * transport passes none of its own, such as 2025 connections (stdio, in memory, HTTP sessions).
   */
  onToolOutcome?: ToolOutcomeListener;
  /** Where resource changes are published and heard; share one (Redis) across instances. */
  changes?: ChangeBus;
  /**
   * Signing of 2026-07-28 multi round-trip `requestState`. Instances behind one load balancer
   * must share `secret`; without one each process makes its own.
   */
  requestState?: RequestStateOptions;
  /**
   * Middleware, outermost first: the same as calling `server.use` for each entry in order. An entry
   * is a middleware (server-level, every kind) or `{use: middleware, pack?, kinds?}`.
   */
  middleware?: readonly (Middleware | MiddlewareRegistration)[];
  /**
   * OpenTelemetry through `@opentelemetry/api` (default true). Nothing is recorded, and nothing
   * exported, until the application registers an SDK (`NodeSDK`, or a tracer and meter provider);
   * then every request gets a SERVER span after the MCP semantic conventions (`tools/call add`),
   * parented on the W3C trace context of `params._meta` or of the HTTP headers (the global
   * propagator must know W3C trace context: NodeSDK registers it by default), and the metrics
   * `mcp.server.operation.duration` (s) and `toolshed.tool.calls` {gen_ai.tool.name, toolshed.outcome}.
   * Failed calls carry `error.type` (the error code), `toolshed.error.kind`, `.retryable` and a
   * masked error's `.ref`, never its message. False turns it off (not even the SDK check runs).
   */
  telemetry?: boolean;
  /**
   * The tasks extension (`io.modelcontextprotocol/tasks`, 2026-07-28): where tasks live (a
   * `TaskStore`: `SqliteTaskStore` on the server's database; `MemoryTaskStore` by default) and
   * their limits. On when a tool may run as a task (`defineTool({task})`); false turns it off.
   */
  tasks?: TaskOptions | false;
}

/** A Toolshed server: the packs, checked once, ready to serve any number of connections. */
export interface ToolshedServer {
  readonly name: string;
  readonly version: string;
  readonly runtime: Runtime;
  /** The protocol core every transport answers from. */
  readonly core: ProtocolCore;
  readonly logger: Logger;
  /**
   * Serves one connection (stdio, in-memory, an HTTP session…) until it closes: the transport's
   * messages go to the protocol core as they are (the transport checks them), 2025 requests after
   * `initialize` and 2026-07-28 requests alike.
   */
  connect(transport: Transport, options?: ConnectOptions): Promise<ServerConnection>;
  /** Tells every client listening for `uri` that it changed (subscriptions/listen, resources/subscribe). */
  notifyResourceUpdated(uri: string): Promise<void>;
  /**
   * Adds a middleware around every request and every tool, resource and prompt call, in both
   * protocol eras and on every transport; returns the server.
   *
   * - Levels. `kind: "request"` runs around a whole request, any method (tools/list,
   *   resources/read, server/discover, …), before its params are checked: it sees every answer,
   *   invalid arguments (C6) and JSON-RPC errors included (not notifications). `"tool"`, `"resource"` and
   *   `"prompt"` run around one call, after validation: around the tool's handler with the
   *   validated arguments (Zod defaults filled in; calls with invalid arguments or refused by a
   *   read-only view never reach it), around a resource read once its URI is matched, around a
   *   prompt's render. By default a middleware runs at every level, so around a tools/call it
   *   runs twice, `ctx.kind` telling which; `options.kinds` narrows it.
   * - Order. The first registered is the outermost (what it does after `await next()` runs
   *   last); server-level middleware runs outside `{pack}` middleware, whatever the order of
   *   registration. Completion, lists and subscriptions have request-level middleware only.
   * - Results. `next()` resolves to the result: a request's result object; a tool's
   *   CallToolResult (error results too: a tool's error, a timeout); a ReadResourceResult; a
   *   GetPromptResult. Returning a value without calling `next()` answers with it.
   * - Errors. A throw is answered like a handler's: at tool level a ToolError becomes a tool
   *   error result with its code and retryable (C8, C9), known failures are classified (C10),
   *   anything else is masked with a reference id and logged (C7); at resource and prompt level
   *   as from their handlers; at request level a JsonRpcError passes through, a ToolError becomes
   *   a JSON-RPC error carrying its class in `data`, anything else is -32603 with a reference id.
   * - Must be called before the server answers its first request (connect, an HTTP handler);
   *   later it throws. `{pack}` must name a mounted pack.
   */
  use(middleware: Middleware, options?: UseOptions): ToolshedServer;
  /** Closes every connection, then the packs' stores. */
  close(): Promise<void>;
}

/** Builds the runtime once from packs; definitions are checked here, at start-up (C13). */
export function createServer(options: CreateServerOptions): ToolshedServer {
  const logger = options.logger ?? createLogger();
  const middleware = new MiddlewareStack(options.packs);
  for (const entry of options.middleware ?? []) {
    if (typeof entry === "function") middleware.add(entry);
    else middleware.add(entry.use, entry);
  }
  const runtime = new Runtime({
    middleware,
    packs: options.packs,
    readOnly: options.readOnly,
    logger,
    textFormat: options.textFormat,
    timeoutMs: options.timeoutMs,
    ...(options.maxResultBytes === undefined ? {} : { maxResultBytes: options.maxResultBytes }),
    isReadOnlyRequest: options.isReadOnlyRequest,
    ...(options.canAccess ? { canAccess: options.canAccess } : {}),
    ...(options.coerce === false ? { coerce: false } : {}),
    ...(options.telemetry === false ? { telemetry: false } : {}),
  });
  const info = {
    name: options.name,
    version: options.version,
    title: options.title,
    instructions: options.instructions,
  };
  const core = new ProtocolCore(runtime, info, {
    ...(options.changes ? { changes: options.changes } : {}),
    ...(options.requestState ? { requestState: options.requestState } : {}),
    ...(options.onToolOutcome ? { onToolOutcome: options.onToolOutcome } : {}),
    ...(options.telemetry === false ? { telemetry: false } : {}),
    ...(options.tasks === undefined ? {} : { tasks: options.tasks }),
  });
  const connections = new Set<Connection>();
  let closed = false;
  const server: ToolshedServer = {
    name: options.name,
    version: options.version,
    runtime,
    core,
    logger,
    use(added, useOptions) {
      middleware.add(added, useOptions);
      return server;
    },
    async connect(transport, connectOptions) {
      if (closed) throw new Error("server is closed");
      middleware.seal();
      const connection: Connection = new Connection(core, transport, connectOptions, () =>
        connections.delete(connection),
      );
      connections.add(connection);
      try {
        await connection.start();
      } catch (error) {
        connections.delete(connection);
        throw error;
      }
      return connection;
    },
    async notifyResourceUpdated(uri) {
      core.changes.publish({ type: "resources/updated", uri });
    },
    async close() {
      if (closed) return;
      closed = true;
      core.close();
      await core.closeTasks();
      await Promise.allSettled([...connections].map((s) => s.close()));
      connections.clear();
      await runtime.close();
    },
  };
  return server;
}
