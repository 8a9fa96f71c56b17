import type { JSONRPCMessage, JSONRPCNotification } from "@modelcontextprotocol/sdk/types.js";
import type { AuthInfo, Logger } from "@toolshed/schema";
import type { Era, TraceContextCarrier } from "@toolshed/server";
import type { Cancellation } from "@toolshed/server/internal";
import {
  type Answer,
  type CallScope,
  type Meta,
  type ProtocolCore,
  type Reply,
  type RequestAccess,
  traceContextOf,
} from "@toolshed/server/internal";
import { currentRequest, type RequestRecord, recordingLogger } from "./request-context.js";
import type { HeaderReader } from "./wire.js";

export type { Answer, Reply };

/** What one HTTP POST gives every request it carries; made once per POST. */
export interface PostScope {
  authInfo?: AuthInfo;
  /** Aborted when the client goes away or the server gives up on the POST's calls. */
  cancel: Cancellation;
  headers: HeaderReader;
  /**
   * The HTTP request's record, for its log line (otherwise the one `runInRequest` set, if any);
   * the calls then log with the request's id.
   */
  record?: RequestRecord;
}

/** What the POST learned of one request before it is dispatched. */
export interface RequestFacts {
  /** Set when the POST already knows the era (a 2026-07-28 header or `_meta` version, or a lone 2025 request). */
  era?: Era;
  /** `params._meta` as the POST read it (null: none), so the core does not read it again. */
  meta?: Meta | null;
  /** The caller's access to what the request names, from the POST's 403 check. */
  access?: RequestAccess;
  /** Streams a notification to the client; absent when the answer is plain JSON. */
  notify?: (notification: JSONRPCNotification) => void;
}

/**
 * The one scope of one request on HTTP, the core's CallScope itself: it reads through to the POST,
 * so its AbortSignal is made only when a handler asks and its trace context only when telemetry records.
 */
class HttpScope implements CallScope {
  readonly cancel: Cancellation;
  readonly logger: Logger;
  readonly authInfo?: AuthInfo;
  readonly era?: Era;
  readonly meta?: Meta | null;
  readonly access?: RequestAccess;
  readonly notify?: CallScope["notify"];
  readonly #headers: HeaderReader;
  readonly #record: RequestRecord | undefined;

  constructor(post: PostScope, facts: RequestFacts, record: RequestRecord | undefined, logger: Logger) {
    this.cancel = post.cancel;
    this.logger = logger;
    this.#headers = post.headers;
    this.#record = record;
    if (post.authInfo) this.authInfo = post.authInfo;
    if (facts.era) this.era = facts.era;
    if (facts.meta !== undefined) this.meta = facts.meta;
    if (facts.access) this.access = facts.access;
    const notify = facts.notify;
    if (notify) this.notify = (n) => notify({ jsonrpc: "2.0", ...n });
  }

  get signal(): AbortSignal {
    return this.cancel.signal;
  }

  get traceContext(): TraceContextCarrier | undefined {
    return traceContextOf((name) => this.#headers.get(name));
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
  return async (message: JSONRPCMessage, post: PostScope, facts: RequestFacts = {}): Promise<Reply | undefined> => {
    if (!("method" in message && "id" in message)) return undefined;
    const record = post.record ?? currentRequest();
    record?.rpc.push(message.method);
    const scope = new HttpScope(post, facts, record, post.record ? recordingLogger(logger, () => record) : logger);
    return core.reply(message, scope);
  };
}

export type Dispatch = ReturnType<typeof createDispatcher>;
