import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { AuthInfo, Logger, Pack, TextFormat } from "@toolshed/schema";
import { createLogger } from "./logger.js";
import { Runtime } from "./runtime.js";
import { createSdkServer, subscriptionsOf } from "./sdk-server.js";

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
}

/** A Toolshed server: the packs, checked once, ready to serve any number of connections. */
export interface ToolshedServer {
  readonly name: string;
  readonly version: string;
  readonly runtime: Runtime;
  readonly logger: Logger;
  /** A new SDK `Server` answering from this runtime, not yet connected. */
  createSdkServer(): Server;
  /** Serves one connection (stdio, in-memory, an HTTP session…) until it closes. */
  connect(transport: Transport): Promise<Server>;
  /** Tells every connection that subscribed to `uri` that it changed (resources/subscribe). */
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
  });
  const info = {
    name: options.name,
    version: options.version,
    title: options.title,
    instructions: options.instructions,
  };
  const connections = new Set<Server>();
  let closed = false;
  return {
    name: options.name,
    version: options.version,
    runtime,
    logger,
    createSdkServer: () => createSdkServer(runtime, info),
    async connect(transport) {
      if (closed) throw new Error("server is closed");
      const server = createSdkServer(runtime, info);
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
      const targets = [...connections].filter((s) => subscriptionsOf(s).has(uri));
      await Promise.allSettled(targets.map((s) => s.sendResourceUpdated({ uri })));
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.allSettled([...connections].map((s) => s.close()));
      connections.clear();
      await runtime.close();
    },
  };
}
