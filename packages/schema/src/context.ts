import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type {
  ClientCapabilities,
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
   * What the client can do: from this request's `_meta` (2026-07-28) or its `initialize` (2025);
   * undefined on a stateless 2025 request. Check it to pick a question the client can answer.
   */
  clientCapabilities?: ClientCapabilities;
  /**
   * Tells listening clients that the resource at `uri` changed (2026-07-28 `subscriptions/listen`,
   * 2025 `resources/subscribe`); with a shared event bus, clients of every instance hear it.
   * Does nothing when the transport has no listeners.
   */
  resourceUpdated?(uri: string): void;
  /** Tells listening clients that the list of resources changed (one was added or removed). */
  resourceListChanged?(): void;
}

/** Options of a question to the client. */
export interface AskOptions {
  /**
   * The question's key in a 2026-07-28 `input_required` result (default `elicitation-1`,
   * `sampling-1`, `roots-1`, … in the order the handler asks). Keys must be stable across runs.
   */
  key?: string;
}

/**
 * Questions a handler may ask the client. With a 2026-07-28 client each one is a multi round-trip
 * request: the request answers `input_required`, and the handler runs again from the start when the
 * client retries with the answer, so everything before the question must be safe to repeat. With a
 * 2025 client on a connection they are requests to the client; without one they fail with a hint.
 */
export interface InputContext {
  /** Asks the client's model for a completion (sampling); fails when the client lacks it. */
  createMessage(params: CreateMessageRequest["params"], options?: AskOptions): Promise<CreateMessageResult>;
  /** Asks the user for input through the client (elicitation); fails when the client lacks it. */
  elicitInput(params: ElicitRequest["params"], options?: AskOptions): Promise<ElicitResult>;
  /** Asks the client for its roots (directories or files it shares); fails when the client lacks it. */
  listRoots(options?: AskOptions): Promise<ListRootsResult>;
}

/** The context a tool handler gets. */
export interface ToolContext extends RequestContext, InputContext {
  toolName: string;
  /** Reports progress when the client asked for it (a progress token); otherwise does nothing. */
  progress(done: number, total?: number, message?: string): Promise<void>;
  /** Sends a log message to the client, filtered by the level it set (2025) or asked for in `_meta` (2026). */
  log(level: LoggingLevel, data: unknown): Promise<void>;
  /**
   * For a tool whose task starts in its handler (`task: { mode, start: "handler" }`): makes the task
   * now, so the call answers with it and the rest of the handler runs as the task (its questions
   * then wait in tasks/get, its progress shows there). Resolves once the task is kept. Does nothing
   * in a call that is not a task, or whose task was made before the handler ran.
   */
  startTask(): Promise<void>;
}

/** The context a prompt's `render` gets: it may ask the client too. */
export interface PromptContext extends RequestContext, Partial<InputContext> {}

export type { AuthInfo, LoggingLevel };
