import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { LoggingLevel } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { RequestContext } from "@toolshed/schema";
import { z } from "zod";
import type { ProtocolCore } from "./core/protocol-core.js";
import type { CallScope, LegacyConnection } from "./core/types.js";
import { isModernRequest } from "./era.js";
import type { Params } from "./params.js";
import type { ToolOutcomeListener } from "./runtime/parts.js";
import { traceContextOf } from "./telemetry.js";

// Permissive request schemas: the SDK's own would turn a malformed request into a -32603 ZodError
// dump; these let the core answer -32602 with a hint instead (C12). Only method and params
// are kept (the core reads nothing else).
// One schema per method for the process, not per connection: each is about 5 KB, which made
// about 70 KB of every HTTP session.
const requestSchemas = new Map<string, z.ZodType>();
const requestOf = (method: string) => {
  let schema = requestSchemas.get(method);
  if (!schema) {
    schema = z.object({ method: z.literal(method), params: z.unknown().optional() });
    requestSchemas.set(method, schema);
  }
  return schema;
};
// The SDK builds an Ajv instance per Server unless given one (about 20 KB a session).
let sharedValidator: AjvJsonSchemaValidator | undefined;
const validator = () => {
  sharedValidator ??= new AjvJsonSchemaValidator();
  return sharedValidator;
};

/** The pieces of the SDK's request "extra" the core uses. */
interface Extra {
  signal: AbortSignal;
  authInfo?: RequestContext["authInfo"];
  requestId: string | number;
  sessionId?: string;
  sendNotification: (n: { method: string; params?: Params }) => Promise<void>;
  sendRequest: <T>(r: { method: string; params?: Params }, schema: z.ZodType<T>) => Promise<T>;
  /** The HTTP request's headers, on the SDK's HTTP transports (sessions). */
  requestInfo?: { headers?: Record<string, string | string[] | undefined> };
}

/** What lasts as long as the connection: its log level and resource subscriptions. */
interface ConnectionState {
  readonly server: Server;
  logLevel: LoggingLevel | undefined;
  readonly subscriptions: Set<string>;
}

/**
 * The connection as one request sees it. A class, not an object literal with a getter and a
 * setter: such a literal made per request cost about a microsecond of every call.
 */
class SdkConnection implements LegacyConnection {
  readonly #state: ConnectionState;
  readonly #extra: Extra;

  constructor(state: ConnectionState, extra: Extra) {
    this.#state = state;
    this.#extra = extra;
  }

  clientCapabilities() {
    return this.#state.server.getClientCapabilities();
  }

  request<T>(method: string, params: Params | undefined, schema: z.ZodType<T>): Promise<T> {
    return this.#extra.sendRequest(params === undefined ? { method } : { method, params }, schema);
  }

  get logLevel(): LoggingLevel | undefined {
    return this.#state.logLevel;
  }

  set logLevel(level: LoggingLevel | undefined) {
    this.#state.logLevel = level;
  }

  get subscriptions(): Set<string> {
    return this.#state.subscriptions;
  }
}

/** What one connection adds to the server's own options. */
export interface ConnectOptions {
  /** Hears the outcome of every tools/call on this connection (before the server-wide listener). */
  onToolOutcome?: ToolOutcomeListener;
}

export interface SdkServerOptions {
  name: string;
  version: string;
  title?: string;
  instructions?: string;
}

/**
 * A low-level SDK `Server` for one connection (stdio, in memory, an HTTP session), every request
 * answered by the protocol core: 2025 requests after `initialize`, and 2026-07-28 requests (which
 * carry their version in `_meta`) on the same connection. The SDK keeps what is per connection:
 * the `initialize` handshake, requests to the client, cancellation and timeouts.
 */
export function createSdkServer(core: ProtocolCore, options: ConnectOptions = {}): Server {
  const { info } = core;
  const serverInfo: { name: string; version: string; title?: string } = { name: info.name, version: info.version };
  if (info.title !== undefined) serverInfo.title = info.title;
  const server = new Server(serverInfo, {
    capabilities: core.capabilities("legacy", true),
    jsonSchemaValidator: validator(),
    ...(info.instructions === undefined ? {} : { instructions: info.instructions }),
  });
  const logger = core.runtime.logger;
  const state: ConnectionState = { server, logLevel: undefined, subscriptions: new Set<string>() };
  const subscriptions = state.subscriptions;

  // The connection's credentials (one token per HTTP session), for the list changes it may hear.
  let connectionAuth: Extra["authInfo"];
  const scopeOf = (extra: Extra): CallScope => {
    if (extra.authInfo) connectionAuth = extra.authInfo;
    const scope: CallScope = {
      signal: extra.signal,
      logger,
      notify: (n) => extra.sendNotification(n),
      connection: new SdkConnection(state, extra),
    };
    if (extra.authInfo) scope.authInfo = extra.authInfo;
    if (extra.sessionId) scope.sessionId = extra.sessionId;
    if (options.onToolOutcome) scope.onToolOutcome = options.onToolOutcome;
    const headers = extra.requestInfo?.headers;
    const traceContext = headers && traceContextOf((name) => oneHeader(headers[name]));
    return traceContext ? { ...scope, traceContext } : scope;
  };

  for (const method of core.connectionMethods) {
    // Protocol's registration, not Server's: Server re-validates tools/call with the SDK schema
    // and answers a ZodError dump; the core checks params itself and answers hints.
    Protocol.prototype.setRequestHandler.call(
      server,
      requestOf(method) as never,
      ((request: { params?: unknown }, extra: Extra) =>
        core.handle(method, request.params, extra.requestId, scopeOf(extra))) as never,
    );
  }

  // A 2026-07-28 request never initializes: the core answers an `initialize` that names a version
  // in _meta (-32601) before the SDK's handshake sees it. Wrapped after the SDK's connect, which
  // sets the transport's onmessage: public members only.
  const connect = server.connect.bind(server);
  server.connect = async (transport) => {
    await connect(transport);
    const sdkOnMessage = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if ("method" in message && "id" in message && message.method === "initialize") {
        if (extra?.authInfo) connectionAuth = extra.authInfo;
        if (isModernRequest("initialize", message.params)) {
          const scope: CallScope = { signal: new AbortController().signal, logger, era: "modern" };
          if (extra?.authInfo) scope.authInfo = extra.authInfo;
          void core
            .dispatch(message, scope)
            .then((answer) => transport.send(answer))
            .catch((error: unknown) => logger.debug({ err: error }, "could not answer a 2026-07-28 initialize"));
          return;
        }
      }
      sdkOnMessage?.(message, extra);
    };
  };

  // Changes reach this connection once the client has finished the handshake (notifications/initialized):
  // updates of what it subscribed to, and list changes.
  let initialized = false;
  server.oninitialized = () => {
    initialized = true;
  };
  const unsubscribe = core.changes.subscribe((event) => {
    if (!initialized) return;
    const sent =
      event.type === "resources/updated"
        ? subscriptions.has(event.uri)
          ? server.sendResourceUpdated({ uri: event.uri })
          : undefined
        : event.type === "resources/list_changed" &&
            core.runtime.hasResources &&
            (event.pack === undefined || core.runtime.seesResourcesOf(event.pack, connectionAuth))
          ? server.sendResourceListChanged()
          : undefined;
    sent?.catch((error: unknown) => logger.debug({ err: error }, "could not send a change notification"));
  });
  const onclose = server.onclose;
  server.onclose = () => {
    unsubscribe();
    onclose?.();
  };
  return server;
}

/** One header's value as node:http gives it: repeated headers joined, as the Fetch API does. */
function oneHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(",") : value;
}
