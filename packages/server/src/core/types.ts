import type {
  ClientCapabilities,
  JSONRPCErrorResponse,
  JSONRPCResultResponse,
  LoggingLevel,
} from "@modelcontextprotocol/sdk/types.js";
import type { AuthInfo, Logger } from "@toolshed/schema";
import type { z } from "zod";
import type { RequestAccess } from "../access.js";
import type { ChangeBus } from "../changes.js";
import type { Envelope } from "../envelope.js";
import type { Era, Meta } from "../era.js";
import type { MiddlewareFrame } from "../middleware.js";
import type { Params } from "../params.js";
import type { RequestStateCodec, RequestStateOptions } from "../request-state.js";
import type { CancelSignal } from "../run-tool.js";
import type { CacheFields } from "../runtime/cache-hints.js";
import type { ToolOutcomeListener } from "../runtime/parts.js";
import type { Runtime } from "../runtime/runtime.js";
import type { TraceContextCarrier } from "../telemetry.js";
import type { TaskOptions, TaskRunner } from "./tasks.js";

// What transports hand the protocol core, and what one request is inside it.

export interface ServerInfo {
  name: string;
  version: string;
  title?: string;
  instructions?: string;
}

/**
 * A 2025 connection that sent `initialize` (stdio, in memory, an HTTP session): it can carry
 * server-to-client requests and keeps a log level and resource subscriptions between requests.
 */
export interface LegacyConnection {
  clientCapabilities(): ClientCapabilities | undefined;
  /** Sends a request to the client and waits for its answer, checked with `schema`. */
  request<T>(method: string, params: Params | undefined, schema: z.ZodType<T>): Promise<T>;
  /** Set by logging/setLevel; undefined sends every level. */
  logLevel: LoggingLevel | undefined;
  readonly subscriptions: Set<string>;
}

/** What a transport gives the core for one request. */
export interface CallScope {
  authInfo?: AuthInfo;
  sessionId?: string;
  /** Aborted when the client cancels or goes away (made on first read by transports that can). */
  readonly signal: AbortSignal;
  /** The same cancellation in a cheaper form, which tool calls listen to when given. */
  cancel?: CancelSignal;
  logger: Logger;
  /** Sends a notification that belongs to this request (progress, log, a listen stream); absent for plain JSON answers. */
  notify?: (notification: { method: string; params?: Params }) => void | Promise<void>;
  /** Set for requests on a 2025 connection. */
  connection?: LegacyConnection;
  /** Called with the tool's name before a tools/call runs (request logs). */
  onToolCall?: (name: string) => void;
  /**
   * Called once for each tools/call answered with a result, with the outcome the "tool call" log
   * line records (`ok`, `validation`, `input_required`, …), whatever the log level. Not called when
   * the call is answered with a JSON-RPC error (unknown tool, malformed params, missing scope).
   * When absent, the core's `onToolOutcome` option is used.
   */
  onToolOutcome?: ToolOutcomeListener;
  /** Set when the transport already knows the era (HTTP: a 2026-07-28 MCP-Protocol-Version header). */
  era?: Era;
  /** `params._meta` when the transport already read it (see metaOf); null: the request has none. */
  meta?: Meta | null;
  /**
   * The caller's access to what the request names, when the transport already asked
   * `ProtocolCore.accessOfRequest` (HTTP, before its 403 check); the core does not ask again.
   */
  access?: RequestAccess;
  /**
   * W3C trace context the transport carried (HTTP `traceparent`, `tracestate`, `baggage` headers):
   * the parent of the request's span when `params._meta` carries none. Read only when telemetry records.
   */
  readonly traceContext?: TraceContextCarrier;
}

export type Answer = JSONRPCResultResponse | JSONRPCErrorResponse;

/** An answer and the HTTP status it goes out with (always 200 in the 2025 era). */
export interface Reply {
  answer: Answer;
  status: number;
}

export interface ProtocolCoreOptions {
  /** Where resource changes are published and heard (default: this process only). */
  changes?: ChangeBus;
  /** Signing of 2026-07-28 `requestState` (share the secret across instances). */
  requestState?: RequestStateOptions;
  /** Cache hint of server/discover (default 5 minutes). */
  discoverTtlMs?: number;
  /** Hears every tool call's outcome on requests whose scope has no `onToolOutcome` (2025 connections). */
  onToolOutcome?: ToolOutcomeListener;
  /**
   * OpenTelemetry spans and metrics through `@opentelemetry/api` (default true): a no-op until the
   * application registers an SDK. False skips even the check for one.
   */
  telemetry?: boolean;
  /**
   * The tasks extension (2026-07-28): where tasks live and their limits. On when a tool may run as
   * a task (`defineTool({task})`), in memory unless a store is given; false turns it off.
   */
  tasks?: TaskOptions | false;
}

/** One request inside the core. */
export interface Call {
  method: string;
  params: Params;
  id: string | number;
  scope: CallScope;
  era: Era;
  envelope: Envelope | undefined;
  /** `params._meta` (see metaOf), read once per request. */
  meta: Meta | undefined;
  /** The request as its middleware sees it; undefined when the server has none. */
  frame: MiddlewareFrame | undefined;
}

/** One method of the method table: who may call it, what it does, what its answer's cache hint is. */
export interface Entry {
  /** Which era may call it; the other gets -32601. */
  era: "both" | Era;
  /** Only on a 2025 connection (resources/subscribe); stateless 2025 requests get -32601. */
  connectionOnly?: boolean;
  run: (call: Call) => unknown;
  /** The cache hint a 2026-07-28 answer carries. */
  cache?: (call: Call) => CacheFields;
}

/** How a handler tells the server of changes. */
export interface ChangeHooks {
  resourceUpdated: (uri: string) => void;
  resourceListChanged: () => void;
  /** A tool's resourceListChanged: the event names the tool's pack. */
  listChangedBy: (toolName: string) => () => void;
}

/** What the core's modules share, made once by ProtocolCore. */
export interface CoreParts {
  readonly runtime: Runtime;
  readonly info: ServerInfo;
  /** What 2026-07-28 results and initialize name the server as. */
  readonly serverInfo: { name: string; version: string; title?: string };
  readonly changes: ChangeBus;
  readonly state: RequestStateCodec;
  readonly discoverTtlMs: number;
  readonly hooks: ChangeHooks;
  readonly onToolOutcome: ToolOutcomeListener | undefined;
  /** Ends each open subscriptions/listen stream. */
  readonly listeners: Set<() => void>;
  /** Runs tool calls as tasks; undefined when the server has no task store. */
  readonly tasks: TaskRunner | undefined;
}
