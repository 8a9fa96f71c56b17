import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type {
  CreateMessageRequest,
  CreateMessageResult,
  ElicitRequest,
  ElicitResult,
  ListRootsResult,
  LoggingLevel,
} from "@modelcontextprotocol/sdk/types.js";

/** Server-side logger (pino-compatible); writes to stderr, never to the protocol stream. */
export interface Logger {
  error(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
  /** Whether lines at `level` are written (pino has it); without it every level counts as on. */
  isLevelEnabled?(level: string): boolean;
}

/** What every handler (tool, resource, prompt, completion) is given about its request. */
export interface RequestContext {
  /** Aborted when the client cancels, the call times out, or the connection closes. */
  signal: AbortSignal;
  /** The caller's verified credentials, when the transport authenticated it. */
  authInfo?: AuthInfo;
  /** JSON-RPC id of the request. */
  requestId?: string | number;
  /** Session id on transports that have sessions. */
  sessionId?: string;
  /** Server-side log, for operators; nothing here reaches the client. */
  logger: Logger;
  /**
   * Tells listening clients that the resource at `uri` changed (2026-07-28 `subscriptions/listen`,
   * 2025 `resources/subscribe`); with a shared event bus, clients of every instance hear it.
   * Does nothing when the transport has no listeners.
   */
  resourceUpdated?(uri: string): void;
  /** Tells listening clients that the list of resources changed (one was added or removed). */
  resourceListChanged?(): void;
}

/** The context a tool handler gets. */
export interface ToolContext extends RequestContext {
  toolName: string;
  /** Reports progress when the client asked for it (a progress token); otherwise does nothing. */
  progress(done: number, total?: number, message?: string): Promise<void>;
  /** Sends a log message to the client, filtered by the level it set with logging/setLevel. */
  log(level: LoggingLevel, data: unknown): Promise<void>;
  /**
   * Asks the client's model for a completion (sampling); fails when the client lacks it.
   * With a 2026-07-28 client this is a multi round-trip request: the call answers
   * `input_required`, and the handler runs again from the start when the client retries with the
   * answer, so everything before this point must be safe to repeat.
   */
  createMessage(params: CreateMessageRequest["params"]): Promise<CreateMessageResult>;
  /** Asks the user for input through the client (elicitation); re-runs the handler like `createMessage`. */
  elicitInput(params: ElicitRequest["params"]): Promise<ElicitResult>;
  /** Asks the client for its roots (directories or files it shares); re-runs the handler like `createMessage`. */
  listRoots(): Promise<ListRootsResult>;
}

export type { AuthInfo, LoggingLevel };
