import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import type {
  ClientCapabilities,
  Implementation,
  JSONRPCMessage,
  JSONRPCRequest,
  LoggingLevel,
  MessageExtraInfo,
} from "@modelcontextprotocol/sdk/types.js";
import { CancelledError, FailedPreconditionError, TimeoutError, UnavailableError } from "@toolshed/errors";
import type { AuthInfo, Logger } from "@toolshed/schema";
import type { z } from "zod";
import type { RequestAccess } from "./access.js";
import { Cancellation } from "./cancellation.js";
import { guardedTarget } from "./core/method-targets.js";
import type { ProtocolCore } from "./core/protocol-core.js";
import type { CallScope, LegacyConnection } from "./core/types.js";
import type { Params } from "./params.js";
import type { CancelSignal } from "./run-tool.js";
import type { ToolOutcomeListener } from "./runtime/parts.js";
import { type TraceContextCarrier, traceContextOf } from "./telemetry.js";

type Id = string | number;

/** What one connection adds to the server's own options. */
export interface ConnectOptions {
  /** Hears the outcome of every tools/call on this connection (before the server-wide listener). */
  onToolOutcome?: ToolOutcomeListener;
  /** Longest wait for the client's answer to a request of the server's (sampling, elicitation, roots); default 60 s. */
  requestTimeoutMs?: number;
  /** Calls whose access the transport's owner already checked (see AdmittedCalls). */
  admitted?: AdmittedCalls;
}

interface Admission {
  authInfo: AuthInfo | undefined;
  method: string;
  key: string | undefined;
  access: RequestAccess;
}

/**
 * Calls whose access a layer in front of the connection already checked (an HTTP session's POST,
 * before its 403 check), so the core does not ask again. An entry serves only the request it was
 * made for: the same id, the same credentials object and the same target.
 */
export class AdmittedCalls {
  readonly #byId = new Map<Id, Admission>();

  /** Records a checked call; the returned function forgets it if no request took it. */
  add(request: JSONRPCRequest, authInfo: AuthInfo | undefined, access: RequestAccess): () => void {
    const entry: Admission = {
      authInfo,
      method: request.method,
      key: guardedTarget(request.method, request.params)?.key,
      access,
    };
    this.#byId.set(request.id, entry);
    return () => {
      if (this.#byId.get(request.id) === entry) this.#byId.delete(request.id);
    };
  }

  /** The access checked for this very request, once; undefined when there is none. */
  take(id: Id, method: string, params: unknown, authInfo: AuthInfo | undefined): RequestAccess | undefined {
    if (this.#byId.size === 0) return undefined;
    const entry = this.#byId.get(id);
    if (entry === undefined) return undefined;
    this.#byId.delete(id);
    const same =
      entry.authInfo === authInfo && entry.method === method && entry.key === guardedTarget(method, params)?.key;
    return same ? entry.access : undefined;
  }
}

/** One client connection as `ToolshedServer.connect` returns it. */
export interface ServerConnection {
  /** The transport's session id (HTTP sessions), if it has one. */
  readonly sessionId: string | undefined;
  /** What the client declared at `initialize`; undefined before it. */
  clientCapabilities(): ClientCapabilities | undefined;
  /** Who the client said it is at `initialize`; undefined before it. */
  clientInfo(): Implementation | undefined;
  /** Called once when the connection has closed, from either side. */
  onclose?: () => void;
  /** Closes the transport; in-flight requests are aborted and the server's pending requests fail. */
  close(): Promise<void>;
}

type Message = {
  jsonrpc: "2.0";
  id?: Id;
  method?: string;
  params?: Params;
  result?: unknown;
  error?: { code?: unknown; message?: unknown };
};

interface Pending {
  resolve: (result: unknown) => void;
  /** The client's error answer. */
  reject: (error: { code?: unknown; message?: unknown }) => void;
  /** Ends the wait with this error (the connection closed). */
  fail: (error: Error) => void;
  timer: NodeJS.Timeout;
  /** Detaches the listener on the asking request's signal. */
  release?: () => void;
}

const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/**
 * One client connection (stdio, in memory, an HTTP session) answered by the protocol core. The
 * transport has already checked each message (stdio answers bad lines itself, the SDK's HTTP
 * transport parses its body); this only tells requests, notifications and answers apart, so a
 * message is validated once. It keeps what lasts as long as the connection: what the client
 * declared at `initialize`, cancellation of in-flight requests, the server's own requests to
 * the client (sampling, elicitation, roots) with their timeouts, the log level and resource
 * subscriptions, and the change notifications the client may hear.
 */
export class Connection implements ServerConnection {
  onclose?: () => void;
  logLevel: LoggingLevel | undefined;
  readonly subscriptions = new Set<string>();

  readonly #core: ProtocolCore;
  readonly #transport: Transport;
  readonly #options: ConnectOptions;
  readonly #ended: (() => void) | undefined;
  readonly #inFlight = new Map<Id, Cancellation>();
  readonly #pending = new Map<number, Pending>();
  #nextId = 0;
  #capabilities: ClientCapabilities | undefined;
  #clientInfo: Implementation | undefined;
  /** Changes reach the client once it has finished the handshake (notifications/initialized). */
  #initialized = false;
  /** The credentials the connection last saw (one token per HTTP session), for the list changes it may hear. */
  #authInfo: AuthInfo | undefined;
  #closed = false;
  #unsubscribe: (() => void) | undefined;

  /** `ended` is the server's own bookkeeping, called before `onclose`. */
  constructor(core: ProtocolCore, transport: Transport, options: ConnectOptions = {}, ended?: () => void) {
    this.#core = core;
    this.#transport = transport;
    this.#options = options;
    this.#ended = ended;
  }

  get sessionId(): string | undefined {
    return this.#transport.sessionId;
  }

  clientCapabilities(): ClientCapabilities | undefined {
    return this.#capabilities;
  }

  clientInfo(): Implementation | undefined {
    return this.#clientInfo;
  }

  /** Takes over the transport's callbacks (chaining the ones already set) and starts it. */
  async start(): Promise<void> {
    const t = this.#transport;
    const { onclose, onerror, onmessage } = t;
    t.onclose = () => {
      onclose?.();
      this.#onClose();
    };
    t.onerror = (error) => {
      onerror?.(error);
      this.#core.runtime.logger.warn({ err: error }, "protocol error");
    };
    t.onmessage = (message, extra) => {
      onmessage?.(message, extra);
      this.#receive(message as Message, extra);
    };
    this.#unsubscribe = this.#core.changes.subscribe((event) => {
      if (!this.#initialized) return;
      const runtime = this.#core.runtime;
      if (event.type === "resources/updated") {
        if (this.subscriptions.has(event.uri)) this.#notify("notifications/resources/updated", { uri: event.uri });
      } else if (
        event.type === "resources/list_changed" &&
        runtime.hasResources &&
        (event.pack === undefined || runtime.seesResourcesOf(event.pack, this.#authInfo))
      ) {
        this.#notify("notifications/resources/list_changed");
      }
    });
    await t.start();
  }

  async close(): Promise<void> {
    await this.#transport.close();
    // A transport that does not call onclose from close() still ends the connection.
    this.#onClose();
  }

  #receive(message: Message, extra: MessageExtraInfo | undefined): void {
    if (typeof message !== "object" || message === null) return;
    const { method, id } = message;
    if (typeof method === "string") {
      if (id === undefined) this.#onNotification(method, message.params);
      else void this.#onRequest(message as Message & { id: Id; method: string }, extra);
    } else if (typeof id === "number" || typeof id === "string") {
      this.#onAnswer(id, message);
    }
  }

  async #onRequest(request: Message & { id: Id; method: string }, extra: MessageExtraInfo | undefined): Promise<void> {
    const { id, method } = request;
    const authInfo = extra?.authInfo as AuthInfo | undefined;
    if (authInfo) this.#authInfo = authInfo;
    const scope = new ConnectionScope(this, id, this.#core.runtime.logger, extra?.requestInfo?.headers);
    if (authInfo) scope.authInfo = authInfo;
    const access = this.#options.admitted?.take(id, method, request.params, authInfo);
    if (access !== undefined) scope.access = access;
    const sessionId = this.#transport.sessionId;
    if (sessionId !== undefined) scope.sessionId = sessionId;
    if (this.#options.onToolOutcome) scope.onToolOutcome = this.#options.onToolOutcome;
    const { cancel } = scope;
    this.#inFlight.set(id, cancel);
    try {
      const { answer } = await this.#core.reply(
        { jsonrpc: "2.0", id, method, ...(request.params === undefined ? {} : { params: request.params }) },
        scope,
      );
      if (cancel.aborted) return;
      if (method === "initialize" && "result" in answer) this.#initialize(request.params);
      await this.#transport.send(answer as JSONRPCMessage);
    } catch (error) {
      this.#core.runtime.logger.debug({ err: error }, "could not send an answer");
    } finally {
      if (this.#inFlight.get(id) === cancel) this.#inFlight.delete(id);
    }
  }

  /** A 2025 `initialize` the core accepted: what the client declared lasts as long as the connection. */
  #initialize(params: Params | undefined): void {
    const capabilities = params?.capabilities;
    this.#capabilities =
      typeof capabilities === "object" && capabilities !== null ? (capabilities as ClientCapabilities) : {};
    const info = params?.clientInfo;
    if (typeof info === "object" && info !== null) this.#clientInfo = info as Implementation;
  }

  #onNotification(method: string, params: Params | undefined): void {
    if (method === "notifications/initialized") {
      this.#initialized = true;
    } else if (method === "notifications/cancelled") {
      const requestId = params?.requestId;
      if (typeof requestId === "string" || typeof requestId === "number") {
        this.#inFlight.get(requestId)?.abort(params?.reason);
      }
    }
    // Anything else (progress of the client's own work, roots changes) asks nothing of the server.
  }

  #onAnswer(id: Id, message: Message): void {
    const key = typeof id === "number" ? id : Number(id);
    const pending = this.#pending.get(key);
    if (pending === undefined) {
      this.#core.runtime.logger.debug({ id }, "an answer for no request of the server's");
      return;
    }
    this.#settle(key, pending);
    if ("result" in message) pending.resolve(message.result);
    else pending.reject(message.error ?? {});
  }

  #settle(key: number, pending: Pending): void {
    this.#pending.delete(key);
    clearTimeout(pending.timer);
    pending.release?.();
  }

  /**
   * A request to the client on behalf of the request `relatedId` (over HTTP it goes out on that
   * request's stream). Cancelled, and the client told so, when that request is cancelled or the
   * client does not answer in time. Failures are tool errors that say what the client did (C10):
   * a timeout is retryable; an error answer or a result of the wrong shape is not.
   */
  request<T>(
    method: string,
    params: Params | undefined,
    schema: z.ZodType<T>,
    relatedId: Id,
    signal: CancelSignal,
  ): Promise<T> {
    if (this.#closed) return Promise.reject(closedBefore(method));
    if (signal.aborted) return Promise.reject(cancelled());
    const id = this.#nextId++;
    const timeout = this.#options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    return new Promise<T>((resolve, reject) => {
      const cancel = (error: Error) => {
        const pending = this.#pending.get(id);
        if (pending === undefined) return;
        this.#settle(id, pending);
        this.send({ method: "notifications/cancelled", params: { requestId: id, reason: error.message } }, relatedId);
        reject(error);
      };
      const onAbort = () => cancel(cancelled());
      signal.addEventListener("abort", onAbort, { once: true });
      this.#pending.set(id, {
        resolve: (result) => {
          const parsed = schema.safeParse(result);
          if (parsed.success) return resolve(parsed.data);
          const issue = parsed.error.issues[0];
          const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
          reject(
            new FailedPreconditionError(
              `the client answered ${method} with an invalid result (${where}${issue?.message})`,
            ),
          );
        },
        reject: (error: { code?: unknown; message?: unknown }) =>
          reject(
            new FailedPreconditionError(
              `the client answered ${method} with error ${String(error.code)}: ${String(error.message)}`,
            ),
          ),
        timer: setTimeout(
          () => cancel(new TimeoutError(`the client did not answer ${method} within ${timeout} ms`)),
          timeout,
        ),
        fail: reject,
        release: () => signal.removeEventListener("abort", onAbort),
      });
      const message = { jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) } as JSONRPCMessage;
      this.#transport.send(message, { relatedRequestId: relatedId }).catch((error: unknown) => {
        const pending = this.#pending.get(id);
        if (pending === undefined) return;
        this.#settle(id, pending);
        reject(new UnavailableError(`could not send ${method} to the client`, { cause: error }));
      });
    });
  }

  /** A notification, on the stream of the request it belongs to when it belongs to one. */
  send(notification: { method: string; params?: Params }, relatedId?: Id): Promise<void> {
    if (this.#closed) return Promise.resolve();
    const message = { jsonrpc: "2.0", ...notification } as JSONRPCMessage;
    const options: TransportSendOptions | undefined =
      relatedId === undefined ? undefined : { relatedRequestId: relatedId };
    return this.#transport.send(message, options);
  }

  #notify(method: string, params?: Params): void {
    this.send(params === undefined ? { method } : { method, params }).catch((error: unknown) =>
      this.#core.runtime.logger.debug({ err: error }, "could not send a change notification"),
    );
  }

  #onClose(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#unsubscribe?.();
    const gone = new CancelledError("the connection to the client closed");
    for (const cancel of this.#inFlight.values()) cancel.abort(gone);
    this.#inFlight.clear();
    for (const [key, pending] of [...this.#pending]) {
      this.#settle(key, pending);
      pending.fail(new UnavailableError("the connection closed before the client answered"));
    }
    this.#ended?.();
    this.onclose?.();
  }
}

/**
 * One request's scope on a connection. A class whose AbortSignal and trace context are made only
 * when read: most calls need neither, and an AbortSignal costs more than a small call.
 */
class ConnectionScope implements CallScope {
  readonly cancel = new Cancellation();
  readonly logger: Logger;
  readonly connection: RequestLink;
  /** Progress and logs of this request (a bound function: the core passes it on); none once it is cancelled. */
  readonly notify: (notification: { method: string; params?: Params }) => Promise<void> | undefined;
  authInfo?: AuthInfo;
  sessionId?: string;
  access?: RequestAccess;
  onToolOutcome?: ToolOutcomeListener;
  readonly #headers: Headers | undefined;

  constructor(connection: Connection, id: Id, logger: Logger, headers: Headers | undefined) {
    this.logger = logger;
    this.#headers = headers;
    this.connection = new RequestLink(connection, id, this.cancel);
    this.notify = (n) => (this.cancel.aborted ? undefined : connection.send(n, id));
  }

  get signal(): AbortSignal {
    return this.cancel.signal;
  }

  get traceContext(): TraceContextCarrier | undefined {
    const headers = this.#headers;
    return headers && traceContextOf((name) => oneHeader(headers[name]));
  }
}

type Headers = Record<string, string | string[] | undefined>;

/**
 * The connection as one request sees it: its requests to the client go out on behalf of this
 * request and are cancelled with it. A class, not an object literal with a getter and a setter:
 * such a literal made per request cost about a microsecond of every call.
 */
class RequestLink implements LegacyConnection {
  readonly #connection: Connection;
  readonly #id: Id;
  readonly #signal: CancelSignal;

  constructor(connection: Connection, id: Id, signal: CancelSignal) {
    this.#connection = connection;
    this.#id = id;
    this.#signal = signal;
  }

  clientCapabilities() {
    return this.#connection.clientCapabilities();
  }

  request<T>(method: string, params: Params | undefined, schema: z.ZodType<T>): Promise<T> {
    return this.#connection.request(method, params, schema, this.#id, this.#signal);
  }

  get logLevel(): LoggingLevel | undefined {
    return this.#connection.logLevel;
  }

  set logLevel(level: LoggingLevel | undefined) {
    this.#connection.logLevel = level;
  }

  get subscriptions(): Set<string> {
    return this.#connection.subscriptions;
  }
}

const cancelled = () => new CancelledError("the call was cancelled by the client");
const closedBefore = (method: string) =>
  new UnavailableError(`the connection to the client closed, so ${method} could not be sent`);

/** One header's value as node:http gives it: repeated headers joined, as the Fetch API does. */
export function oneHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(",") : value;
}
