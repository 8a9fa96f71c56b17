import type { JSONRPCMessage, JSONRPCNotification } from "@modelcontextprotocol/sdk/types.js";
import type { AuthInfo, Logger } from "@toolshed/schema";
import type { Era, TraceContextCarrier } from "@toolshed/server";
import type { Answer, CallScope, CancelSignal, ProtocolCore, Reply } from "@toolshed/server/internal";
import { currentRequest, type RequestRecord, recordingLogger } from "./request-context.js";

/** What one HTTP request gives the calls it carries. */
export interface CallContext {
  authInfo?: AuthInfo;
  /** Aborted when the client goes away or the server gives up on the call. */
  signal: AbortSignal;
  /** The same cancellation in a cheaper form, which tool calls listen to instead when given. */
  cancel?: CancelSignal;
  /** Streams a notification to the client; absent when the answer is plain JSON. */
  notify?: (notification: JSONRPCNotification) => void;
  /**
   * The HTTP request's record, for its log line (otherwise the one `runInRequest` set, if any);
   * the calls then log with the request's id.
   */
  record?: RequestRecord;
  /** Set when the transport already knows the era (a 2026-07-28 MCP-Protocol-Version header). */
  era?: Era;
  /** The request's W3C trace context headers, the parent of its spans when `params._meta` has none. */
  readonly traceContext?: TraceContextCarrier;
}

export type { Answer, Reply };

/**
 * A request's scope for the core. Reads through to the caller's context instead of copying it:
 * copying would read (and so make) its signal.
 */
class HttpScope implements CallScope {
  readonly #base: CallContext;
  readonly #record: RequestRecord | undefined;
  readonly logger: Logger;

  constructor(base: CallContext, record: RequestRecord | undefined, logger: Logger) {
    this.#base = base;
    this.#record = record;
    this.logger = logger;
  }

  get signal(): AbortSignal {
    return this.#base.signal;
  }

  get cancel(): CancelSignal | undefined {
    return this.#base.cancel;
  }

  get authInfo(): AuthInfo | undefined {
    return this.#base.authInfo;
  }

  get era(): Era | undefined {
    return this.#base.era;
  }

  get traceContext(): TraceContextCarrier | undefined {
    return this.#base.traceContext;
  }

  get notify(): CallScope["notify"] {
    const notify = this.#base.notify;
    return notify && ((n) => notify({ jsonrpc: "2.0", ...n }));
  }

  onToolCall(name: string): void {
    this.#record?.tools.push(name);
  }

  onToolOutcome(_name: string, outcome: string): void {
    this.#record?.outcomes.push(outcome);
  }
}

/**
 * Stateless JSON-RPC over the shared protocol core: no SDK server or transport per request.
 * Answers requests, each with the HTTP status it goes out with; notifications and client
 * responses need no answer (undefined).
 */
export function createDispatcher(core: ProtocolCore) {
  const logger = core.runtime.logger;
  return async (message: JSONRPCMessage, callContext: CallContext): Promise<Reply | undefined> => {
    if (!("method" in message && "id" in message)) return undefined;
    const record = callContext.record ?? currentRequest();
    record?.rpc.push(message.method);
    const scope = new HttpScope(
      callContext,
      record,
      callContext.record ? recordingLogger(logger, () => record) : logger,
    );
    return core.reply(message, scope);
  };
}

export type Dispatch = ReturnType<typeof createDispatcher>;
