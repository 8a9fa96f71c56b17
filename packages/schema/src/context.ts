import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type {
  CreateMessageRequest,
  CreateMessageResult,
  ElicitRequest,
  ElicitResult,
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
}

/** The context a tool handler gets. */
export interface ToolContext extends RequestContext {
  toolName: string;
  /** Reports progress when the client asked for it (a progress token); otherwise does nothing. */
  progress(done: number, total?: number, message?: string): Promise<void>;
  /** Sends a log message to the client, filtered by the level it set with logging/setLevel. */
  log(level: LoggingLevel, data: unknown): Promise<void>;
  /** Asks the client's model for a completion (sampling); fails when the client lacks it. */
  createMessage(params: CreateMessageRequest["params"]): Promise<CreateMessageResult>;
  /** Asks the user for input through the client (elicitation); fails when the client lacks it. */
  elicitInput(params: ElicitRequest["params"]): Promise<ElicitResult>;
}

export type { AuthInfo, LoggingLevel };
