import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { AuthInfo, Logger, Pack, TextFormat } from "@toolshed/schema";
import type { CanAccess } from "./access.js";
import type { ChangeBus } from "./changes.js";
import { ProtocolCore } from "./core.js";
import { createLogger } from "./logger.js";
import type { RequestStateOptions } from "./request-state.js";
import { Runtime, type ToolOutcomeListener } from "./runtime.js";
import { type ConnectOptions, createSdkServer } from "./sdk-server.js";

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
}

/** A Toolshed server: the packs, checked once, ready to serve any number of connections. */
export interface ToolshedServer {
  readonly name: string;
  readonly version: string;
  readonly runtime: Runtime;
  /** The protocol core every transport answers from. */
  readonly core: ProtocolCore;
  readonly logger: Logger;
  /** A new SDK `Server` answering from this runtime, not yet connected. */
  createSdkServer(): Server;
  /** Serves one connection (stdio, in-memory, an HTTP session…) until it closes. */
  connect(transport: Transport, options?: ConnectOptions): Promise<Server>;
  /** Tells every client listening for `uri` that it changed (subscriptions/listen, resources/subscribe). */
  notifyResourceUpdated(uri: string): Promise<void>;
  /** Closes every connection, then the packs' stores. */
  close(): Promise<void>;
}

/** Builds the runtime once from packs; definitions are checked here, at start-up (C13). */
export function createServer(options: CreateServerOptions): ToolshedServer {
  const logger = options.logger ?? createLogger();
  const runtime = new Runtime({
    packs: options.packs,
    readOnly: options.readOnly,
    logger,
    textFormat: options.textFormat,
    timeoutMs: options.timeoutMs,
    isReadOnlyRequest: options.isReadOnlyRequest,
    ...(options.canAccess ? { canAccess: options.canAccess } : {}),
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
  });
  const connections = new Set<Server>();
  let closed = false;
  return {
    name: options.name,
    version: options.version,
    runtime,
    core,
    logger,
    createSdkServer: () => createSdkServer(core),
    async connect(transport, connectOptions) {
      if (closed) throw new Error("server is closed");
      const server = createSdkServer(core, connectOptions);
      server.onerror = (error) => logger.warn({ err: error }, "protocol error");
      connections.add(server);
      await server.connect(transport);
      // The SDK already chains the transport's own onclose; this only adds bookkeeping.
      const onclose = server.onclose;
      server.onclose = () => {
        connections.delete(server);
        onclose?.();
      };
      return server;
    },
    async notifyResourceUpdated(uri) {
      core.changes.publish({ type: "resources/updated", uri });
    },
    async close() {
      if (closed) return;
      closed = true;
      core.close();
      await Promise.allSettled([...connections].map((s) => s.close()));
      connections.clear();
      await runtime.close();
    },
  };
}
