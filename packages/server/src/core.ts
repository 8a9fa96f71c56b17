import {
  type ClientCapabilities,
  CreateMessageResultSchema,
  ElicitResultSchema,
  type JSONRPCErrorResponse,
  type JSONRPCRequest,
  type JSONRPCResultResponse,
  LATEST_PROTOCOL_VERSION,
  ListRootsResultSchema,
  type LoggingLevel,
  LoggingLevelSchema,
  type ServerCapabilities,
} from "@modelcontextprotocol/sdk/types.js";
import { isToolError, ToolError } from "@toolshed/errors";
import { internalErrorMessage, newErrorRef } from "@toolshed/errors/internal";
import type { AuthInfo, Logger, RequestContext, ToolContext } from "@toolshed/schema";
import type { z } from "zod";
import { ACCESS_OK, insufficientScopeError, type RequestAccess } from "./access.js";
import type { ChangeBus, ChangeEvent } from "./changes.js";
import { LocalChangeBus } from "./changes.js";
import { guardedTarget } from "./core/method-targets.js";
import { type Envelope, readEnvelope } from "./envelope.js";
import { type Era, isModernRequest, LEGACY_PROTOCOL_VERSIONS, MetaKey, MODERN_PROTOCOL_VERSIONS } from "./era.js";
import { type InputRound, runInRounds } from "./input-round.js";
import { JsonRpcCode, JsonRpcError } from "./jsonrpc-error.js";
import {
  checkResultObject,
  MiddlewareFrame,
  type MiddlewareStack,
  requestContext,
  runChain,
  toolErrorAsProtocolError,
} from "./middleware.js";
import { checkLogLevel, completionParams, optionalObject, type Params, paramsOf, requireString } from "./params.js";
import { principalOf, RequestStateCodec, type RequestStateOptions } from "./request-state.js";
import type { CancelSignal } from "./run-tool.js";
import type { CacheFields } from "./runtime/cache-hints.js";
import type { ToolOutcomeListener } from "./runtime/parts.js";
import type { Runtime } from "./runtime/runtime.js";
import { ServerTelemetry, TelemetryAttr, type TraceContextCarrier } from "./telemetry.js";

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
  /**
   * W3C trace context the transport carried (HTTP `traceparent`, `tracestate`, `baggage` headers):
   * the parent of the request's span when `params._meta` carries none. Read only when telemetry records.
   */
  readonly traceContext?: TraceContextCarrier;
}

export type Answer = JSONRPCResultResponse | JSONRPCErrorResponse;

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
}

interface Call {
  method: string;
  params: Params;
  id: string | number;
  scope: CallScope;
  era: Era;
  envelope: Envelope | undefined;
  /** The request as its middleware sees it; undefined when the server has none. */
  frame: MiddlewareFrame | undefined;
}

interface Entry {
  /** Which era may call it; the other gets -32601. */
  era: "both" | Era;
  /** Only on a 2025 connection (resources/subscribe); stateless 2025 requests get -32601. */
  connectionOnly?: boolean;
  run: (call: Call) => unknown;
  /** The cache hint a 2026-07-28 answer carries. */
  cache?: (call: Call) => CacheFields;
}

const SEVERITY = new Map(LoggingLevelSchema.options.map((level, index) => [level, index]));
const atLeast = (level: LoggingLevel, min: LoggingLevel) => (SEVERITY.get(level) ?? 0) >= (SEVERITY.get(min) ?? 0);

const methodNotFound = (era: Era) =>
  new JsonRpcError(JsonRpcCode.MethodNotFound, "Method not found", undefined, era === "modern" ? 404 : undefined);

const cannot = (what: string) => () =>
  Promise.reject(
    new ToolError(`this server runs without sessions, so the tool cannot ${what}`, { code: "failed_precondition" }),
  );
const NO_SESSION = {
  createMessage: cannot("ask the client's model (sampling)"),
  elicitInput: cannot("ask the user (elicitation)"),
  listRoots: cannot("list the client's roots"),
};

const NOTIFICATION_OF: Record<ChangeEvent["type"], string> = {
  "tools/list_changed": "toolsListChanged",
  "prompts/list_changed": "promptsListChanged",
  "resources/list_changed": "resourcesListChanged",
  "resources/updated": "resourceSubscriptions",
};

/**
 * The one protocol core: every MCP method, in both eras, for every transport. A request whose
 * `_meta` names a protocol version (or `server/discover`) follows 2026-07-28: its envelope is
 * checked, its result carries `resultType`, server info and cache hints, and questions to the
 * client are multi round-trip. Anything else follows the 2025 revisions.
 */
export class ProtocolCore {
  readonly runtime: Runtime;
  readonly info: ServerInfo;
  readonly changes: ChangeBus;
  readonly #methods = new Map<string, Entry>();
  readonly #state: RequestStateCodec;
  readonly #serverInfo: { name: string; version: string; title?: string };
  readonly #discoverTtlMs: number;
  readonly #listeners = new Set<() => void>();
  readonly #status = new WeakMap<object, number>();
  readonly #resourceUpdated: (uri: string) => void;
  readonly #resourceListChanged: () => void;
  readonly #listChangedOf = new Map<string, () => void>();
  readonly #onToolOutcome: ToolOutcomeListener | undefined;
  readonly #telemetry: ServerTelemetry | undefined;

  constructor(runtime: Runtime, info: ServerInfo, options: ProtocolCoreOptions = {}) {
    this.runtime = runtime;
    this.info = info;
    this.changes = options.changes ?? new LocalChangeBus();
    this.#state = new RequestStateCodec(options.requestState);
    this.#discoverTtlMs = options.discoverTtlMs ?? 5 * 60_000;
    this.#onToolOutcome = options.onToolOutcome;
    if (options.telemetry !== false) {
      // Hidden from the caller counts as unknown; a scope it lacks does not (its 403 names the target).
      const visible = (kind: "tool" | "prompt", name: string, auth: AuthInfo | undefined) => {
        const access = runtime.access(auth, kind, name);
        return access.ok || !access.hidden;
      };
      this.#telemetry = new ServerTelemetry((attr, name, auth) =>
        attr === TelemetryAttr.toolName
          ? runtime.tools.has(name) && visible("tool", name, auth)
          : attr === TelemetryAttr.methodName
            ? this.#methods.has(name)
            : runtime.prompts.has(name) && visible("prompt", name, auth),
      );
    }
    this.#serverInfo = { name: info.name, version: info.version };
    if (info.title !== undefined) this.#serverInfo.title = info.title;
    this.#resourceUpdated = (uri) => this.changes.publish({ type: "resources/updated", uri });
    this.#resourceListChanged = () => this.changes.publish({ type: "resources/list_changed" });
    this.#register();
  }

  /**
   * What the server offers. A 2025 connection can be told of changes; a stateless 2025 request
   * cannot (no stream outlives it); a 2026-07-28 client hears them through subscriptions/listen.
   */
  capabilities(era: Era, connection = false): ServerCapabilities {
    const { runtime } = this;
    const live = era === "modern" || connection;
    const capabilities: ServerCapabilities = { tools: { listChanged: false }, logging: {} };
    if (runtime.hasResources) capabilities.resources = { listChanged: live, ...(live ? { subscribe: true } : {}) };
    if (runtime.hasPrompts) capabilities.prompts = { listChanged: false };
    if (runtime.hasResources || runtime.hasPrompts) capabilities.completions = {};
    return capabilities;
  }

  /** The methods a 2025 connection hands to the core (the SDK keeps the initialize handshake). */
  get connectionMethods(): string[] {
    return [...this.#methods.keys()].filter((m) => m !== "initialize");
  }

  /**
   * Answers one request: the result, or a thrown JsonRpcError. Unexpected failures are masked
   * behind a reference id that is also in the log (C7), so no transport ever sends their text.
   */
  handle(method: string, rawParams: unknown, id: string | number, scope: CallScope): Promise<unknown> {
    const era: Era = scope.era ?? (isModernRequest(method, rawParams) ? "modern" : "legacy");
    const recorder = this.#telemetry?.recorder();
    if (recorder === undefined) return this.#answer(method, rawParams, id, scope, era);
    return this.#telemetry?.observe(recorder, method, rawParams, id, scope, era, () =>
      this.#answer(method, rawParams, id, scope, era),
    ) as Promise<unknown>;
  }

  async #answer(method: string, rawParams: unknown, id: string | number, scope: CallScope, era: Era): Promise<unknown> {
    const middleware = this.runtime.middleware;
    if (middleware !== undefined) {
      middleware.seal();
      if (middleware.active) return this.#handleThrough(middleware, method, rawParams, id, scope, era);
    }
    try {
      const params = paramsOf(method, rawParams);
      const envelope = era === "modern" ? readEnvelope(method, params) : undefined;
      const entry = this.#entryFor(method, era, scope);
      const call: Call = { method, params, id, scope, era, envelope, frame: undefined };
      const result = (await entry.run(call)) as Record<string, unknown>;
      if (era === "legacy") return result;
      return this.#modernResult(result, entry.cache?.(call), scope);
    } catch (error) {
      throw this.#asProtocolError(error, era, method, rawParams, scope.logger);
    }
  }

  #entryFor(method: string, era: Era, scope: CallScope): Entry {
    const entry = this.#methods.get(method);
    if (!entry || (entry.era !== "both" && entry.era !== era) || (entry.connectionOnly && !scope.connection)) {
      throw methodNotFound(era);
    }
    return entry;
  }

  /**
   * `handle` with middleware: the request-level chain runs around everything the method does
   * (params checks included, so it sees every answer); the era's result shape (2026-07-28
   * `resultType`, server info, cache hints) is added outside it, so a short-circuit value is still
   * a valid answer. A JsonRpcError thrown there passes through, a ToolError becomes a JSON-RPC
   * error with its class in `data`, anything else is masked behind a reference id (C7).
   */
  async #handleThrough(
    middleware: MiddlewareStack,
    method: string,
    rawParams: unknown,
    id: string | number,
    scope: CallScope,
    era: Era,
  ): Promise<unknown> {
    const frame = new MiddlewareFrame(method, era, id, rawParams, scope);
    let cache: CacheFields | undefined;
    const run = async () => {
      const params = paramsOf(method, rawParams);
      const envelope = era === "modern" ? readEnvelope(method, params) : undefined;
      const entry = this.#entryFor(method, era, scope);
      const call: Call = { method, params, id, scope, era, envelope, frame };
      const result = await entry.run(call);
      cache = entry.cache?.(call);
      return result;
    };
    try {
      const chain = middleware.request;
      const value = chain.length === 0 ? await run() : await runChain(chain, requestContext(frame), run);
      const result = checkResultObject<Record<string, unknown>>(value, method);
      if (era === "legacy") return result;
      return this.#modernResult(result, cache, scope);
    } catch (error) {
      const cause = isToolError(error) ? toolErrorAsProtocolError(method, error) : error;
      throw this.#asProtocolError(cause, era, method, rawParams, scope.logger);
    }
  }

  /** `handle` as a JSON-RPC answer; never throws. */
  async dispatch(request: JSONRPCRequest, scope: CallScope): Promise<Answer> {
    const { id, method } = request;
    try {
      const result = (await this.handle(method, request.params, id, scope)) as JSONRPCResultResponse["result"];
      return { jsonrpc: "2.0", id, result };
    } catch (error) {
      const e = error as JsonRpcError;
      const err: JSONRPCErrorResponse["error"] = { code: e.code, message: e.message };
      if (e.data !== undefined) err.data = e.data;
      const answer: JSONRPCErrorResponse = { jsonrpc: "2.0", id, error: err };
      if (e.status !== undefined) this.#status.set(answer, e.status);
      return answer;
    }
  }

  /**
   * What this caller may do with the definition a request names, before it is dispatched: tools/call
   * (`params.name`), resources/read and resources/subscribe (`params.uri`), prompts/get (`params.name`)
   * and completion/complete (`params.ref`). Undefined for other methods and for params too malformed
   * to name anything (dispatch answers those). A transport answers a scope denial itself (HTTP: 403
   * `insufficient_scope`, with `insufficientScopeError(access.action, access, authInfo)` as the body);
   * `hidden` and `ok` go on to dispatch, which answers a hidden definition as if it did not exist.
   */
  accessOfRequest(
    message: { method: string; params?: unknown },
    authInfo: AuthInfo | undefined,
  ): RequestAccess | undefined {
    const target = guardedTarget(message.method, message.params);
    if (target === undefined) return undefined;
    if (!this.runtime.filtersByCaller) return ACCESS_OK;
    const [nameOrUri, action] = [target.key, message.method];
    let kind = target.kind;
    // completion/complete names a template by its URI template, else a fixed resource by its URI.
    if (kind === "resourceTemplate" && ![...this.runtime.templates.values()].some((t) => t.uriTemplate === nameOrUri)) {
      kind = "resource";
    }
    const access = this.runtime.access(authInfo, kind, nameOrUri);
    return access.ok || access.hidden ? access : { ...access, action: `${action} ${nameOrUri}` };
  }

  /** The HTTP status a 2026-07-28 answer goes out with (400 for a bad envelope, 404 for an unknown method). */
  statusOf(answer: Answer): number {
    return this.#status.get(answer) ?? 200;
  }

  /** The tool's ctx.resourceListChanged: the event names the tool's pack, so listeners who cannot see it are not told. */
  #listChangedBy(toolName: string): () => void {
    let publish = this.#listChangedOf.get(toolName);
    if (publish === undefined) {
      const pack = this.runtime.packOf(toolName);
      publish =
        pack === undefined
          ? this.#resourceListChanged
          : () => this.changes.publish({ type: "resources/list_changed", pack });
      this.#listChangedOf.set(toolName, publish);
    }
    return publish;
  }

  /** Ends every subscriptions/listen stream with its final result (the server is closing). */
  close(): void {
    for (const end of [...this.#listeners]) end();
  }

  #modernResult(result: Record<string, unknown>, cache: CacheFields | undefined, scope: CallScope) {
    const meta = result._meta as Record<string, unknown> | undefined;
    const out: Record<string, unknown> = {
      ...result,
      resultType: result.resultType ?? "complete",
      _meta:
        meta === undefined
          ? { [MetaKey.serverInfo]: this.#serverInfo }
          : { ...meta, [MetaKey.serverInfo]: this.#serverInfo },
    };
    if (cache && out.resultType === "complete") {
      out.ttlMs = cache.ttlMs;
      out.cacheScope = cache.scope ?? (scope.authInfo ? "private" : "public");
    }
    return out;
  }

  #asProtocolError(error: unknown, era: Era, method: string, rawParams: unknown, logger: Logger): JsonRpcError {
    if (error instanceof JsonRpcError) {
      if (era === "modern" && error.code === JsonRpcCode.ResourceNotFound) {
        // Exactly {uri}: what the revision shows, and what clients match a missing resource on.
        const uri = (rawParams as { uri?: unknown } | undefined)?.uri;
        return new JsonRpcError(JsonRpcCode.InvalidParams, error.message, { uri });
      }
      return error;
    }
    const ref = newErrorRef();
    logger.error({ ref, method, err: error }, `Internal error answering ${method}`);
    const masked = new JsonRpcError(JsonRpcCode.InternalError, internalErrorMessage(ref));
    this.#telemetry?.refs.set(masked, ref);
    return masked;
  }

  #baseContext(call: Call): RequestContext {
    const { scope } = call;
    const ctx: RequestContext = {
      signal: scope.signal,
      requestId: call.id,
      logger: scope.logger,
      resourceUpdated: this.#resourceUpdated,
      resourceListChanged: this.#resourceListChanged,
    };
    if (scope.authInfo) ctx.authInfo = scope.authInfo;
    if (scope.sessionId) ctx.sessionId = scope.sessionId;
    const capabilities = call.envelope?.clientCapabilities ?? scope.connection?.clientCapabilities();
    if (capabilities) ctx.clientCapabilities = capabilities;
    return ctx;
  }

  /** The one place a tool call's context is made, for either era and any transport. */
  #toolContext(call: Call, toolName: string, round: InputRound | undefined): Omit<ToolContext, "signal" | "toolName"> {
    const { scope, envelope, params } = call;
    const token = (params._meta as { progressToken?: unknown } | undefined)?.progressToken;
    const progressToken = typeof token === "string" || typeof token === "number" ? token : undefined;
    const connection = scope.connection;
    const notify = scope.notify;
    // No signal here: the runtime gives each call its own, so `scope.signal` is not read (and not made).
    const ctx: Omit<ToolContext, "signal" | "toolName"> = {
      requestId: call.id,
      logger: scope.logger,
      resourceUpdated: this.#resourceUpdated,
      resourceListChanged: this.#listChangedBy(toolName),
      progress: async (progress, total, message) => {
        if (progressToken === undefined || !notify) return;
        const p: Params = { progressToken, progress };
        if (total !== undefined) p.total = total;
        if (message !== undefined) p.message = message;
        await notify({ method: "notifications/progress", params: p });
      },
      log: async (level, data) => {
        if (!notify) return;
        // 2026-07-28: only when this request asked for logs; 2025: the connection's level, if set.
        const min = call.era === "modern" ? envelope?.logLevel : connection?.logLevel;
        if (call.era === "modern" && min === undefined) return;
        if (min !== undefined && !atLeast(level, min)) return;
        await notify({ method: "notifications/message", params: { level, logger: toolName, data } });
      },
      ...this.#questions(round, connection),
    };
    if (scope.authInfo) ctx.authInfo = scope.authInfo;
    if (scope.sessionId) ctx.sessionId = scope.sessionId;
    const capabilities = envelope?.clientCapabilities ?? connection?.clientCapabilities();
    if (capabilities) ctx.clientCapabilities = capabilities;
    return ctx;
  }

  /** How a handler asks the client something: a round trip (2026), a request on the connection (2025), or a clear no. */
  #questions(
    round: InputRound | undefined,
    connection: LegacyConnection | undefined,
  ): Pick<ToolContext, "createMessage" | "elicitInput" | "listRoots"> {
    if (round) {
      return {
        createMessage: (params, options) => round.ask("sampling/createMessage", params, options?.key) as Promise<never>,
        elicitInput: (params, options) => round.ask("elicitation/create", params, options?.key) as Promise<never>,
        listRoots: (options) => round.ask("roots/list", undefined, options?.key) as Promise<never>,
      };
    }
    if (!connection) return NO_SESSION;
    const needs = (capability: "sampling" | "elicitation" | "roots", what: string) => {
      if (!(connection.clientCapabilities() as Record<string, unknown> | undefined)?.[capability]) {
        throw new ToolError(`this client does not support ${capability}, so the tool cannot ${what}`, {
          code: "failed_precondition",
        });
      }
    };
    return {
      createMessage: async (params) => {
        needs("sampling", "ask its model");
        return connection.request("sampling/createMessage", params as Params, CreateMessageResultSchema as never);
      },
      elicitInput: async (params) => {
        needs("elicitation", "ask the user");
        return connection.request("elicitation/create", params as Params, ElicitResultSchema as never);
      },
      listRoots: async () => {
        needs("roots", "list its roots");
        return connection.request("roots/list", undefined, ListRootsResultSchema as never);
      },
    };
  }

  async #callTool(call: Call): Promise<unknown> {
    const { params, scope } = call;
    const name = requireString("tools/call", params, "name", "the tool name (a non-empty string)");
    const args = optionalObject("tools/call", params, "arguments") ?? {};
    scope.onToolCall?.(name);
    const view = this.runtime.viewFor(scope.authInfo);
    // A scope may be a class instance with the listener as a method.
    const onOutcome = scope.onToolOutcome ? scope.onToolOutcome.bind(scope) : this.#onToolOutcome;
    if (!call.envelope) {
      const ctx = this.#toolContext(call, name, undefined);
      return this.runtime.callTool(name, args, view, ctx, scope.cancel ?? scope.signal, onOutcome, call.frame);
    }
    return this.#inRounds(call, name, args, (round) =>
      this.runtime.callTool(name, args, view, this.#toolContext(call, name, round), round, onOutcome, call.frame),
    );
  }

  async #getPrompt(call: Call): Promise<unknown> {
    const { params } = call;
    const name = requireString("prompts/get", params, "name", "the prompt name (a non-empty string)");
    const args = optionalObject("prompts/get", params, "arguments") ?? {};
    if (!call.envelope) {
      return this.runtime.getPrompt(
        name,
        args,
        { ...this.#baseContext(call), ...this.#questions(undefined, call.scope.connection) },
        call.frame,
      );
    }
    return this.#inRounds(call, name, args, (round) =>
      // A prompt is not raced by runTool: the round's stop ends the wait for it.
      Promise.race([
        this.runtime.getPrompt(
          name,
          args,
          { ...this.#baseContext(call), ...this.#questions(round, undefined) },
          call.frame,
          round,
        ),
        round.stopped,
      ]),
    );
  }

  /** A round of a multi round-trip request for this call (see runInRounds). */
  #inRounds<T>(call: Call, target: string, args: unknown, run: (round: InputRound) => Promise<T>) {
    const { params, scope, method, envelope } = call;
    return runInRounds(
      {
        codec: this.#state,
        binding: () => ({ method, target, args, principal: principalOf(scope.authInfo) }),
        requestState: params.requestState,
        inputResponses: optionalObject(method, params, "inputResponses"),
        capabilities: envelope?.clientCapabilities ?? {},
        signal: scope.cancel ?? lazySignal(scope),
      },
      run,
    );
  }

  async #listen(call: Call): Promise<unknown> {
    const { params, scope, id } = call;
    const filter = optionalObject("subscriptions/listen", params, "notifications");
    if (!filter) {
      throw new JsonRpcError(
        JsonRpcCode.InvalidParams,
        "Invalid params for subscriptions/listen: params.notifications must be an object such as {resourcesListChanged: true, resourceSubscriptions: [uri]}",
      );
    }
    const notify = scope.notify;
    if (!notify) throw new JsonRpcError(JsonRpcCode.InternalError, "subscriptions/listen needs a streaming transport");
    const caps = this.capabilities("modern");
    const honoured: Record<string, unknown> = {};
    if (filter.toolsListChanged === true && caps.tools?.listChanged) honoured.toolsListChanged = true;
    if (filter.promptsListChanged === true && caps.prompts?.listChanged) honoured.promptsListChanged = true;
    if (filter.resourcesListChanged === true && caps.resources?.listChanged) honoured.resourcesListChanged = true;
    const uris = filter.resourceSubscriptions;
    if (uris !== undefined && (!Array.isArray(uris) || uris.some((u) => typeof u !== "string"))) {
      throw new JsonRpcError(
        JsonRpcCode.InvalidParams,
        "Invalid params for subscriptions/listen: params.notifications.resourceSubscriptions must be a list of resource URIs",
      );
    }
    // Only what this caller may read: a hidden or forbidden resource is not watched for it.
    const watched = new Set<string>(
      caps.resources?.subscribe
        ? ((uris as string[] | undefined) ?? []).filter((u) => readable(this.runtime, u, scope.authInfo))
        : [],
    );
    if (uris !== undefined) honoured.resourceSubscriptions = [...watched];
    const tag = { [MetaKey.subscriptionId]: id };
    await notify({
      method: "notifications/subscriptions/acknowledged",
      params: { _meta: tag, notifications: honoured },
    });
    const final = { _meta: tag };
    const signal = scope.cancel ?? scope.signal;
    if (signal.aborted) return final;
    return new Promise((resolve) => {
      const { runtime } = this;
      const auth = scope.authInfo;
      const unsubscribe = this.changes.subscribe((event) => {
        if (event.type === "resources/updated") {
          if (!matches(watched, event.uri)) return;
          // Under a watched prefix may lie a resource this caller may not read: it hears nothing of it.
          if (!watched.has(event.uri) && runtime.filtersByCaller && !readable(runtime, event.uri, auth)) return;
          void notify({ method: "notifications/resources/updated", params: { _meta: tag, uri: event.uri } });
        } else if (honoured[NOTIFICATION_OF[event.type]] === true) {
          if (
            event.type === "resources/list_changed" &&
            event.pack !== undefined &&
            !runtime.seesResourcesOf(event.pack, auth)
          ) {
            return;
          }
          void notify({ method: `notifications/${event.type}`, params: { _meta: tag } });
        }
      });
      const end = () => {
        unsubscribe();
        this.#listeners.delete(end);
        signal.removeEventListener("abort", end);
        resolve(final);
      };
      this.#listeners.add(end);
      signal.addEventListener("abort", end, { once: true });
    });
  }

  #register(): void {
    const { runtime, info } = this;
    const on = (method: string, entry: Entry) => this.#methods.set(method, entry);
    // Lists and reads filtered per caller are private to an authenticated caller, whatever a pack's hint says.
    const perCaller = (cache: CacheFields, call: Call): CacheFields =>
      runtime.filtersByCaller && call.scope.authInfo !== undefined && cache.scope !== "private"
        ? { ttlMs: cache.ttlMs, scope: "private" }
        : cache;
    const definitions = (call: Call): CacheFields => perCaller(runtime.definitionsCache, call);
    const base = (call: Call) => this.#baseContext(call);

    on("initialize", {
      era: "legacy",
      run: ({ params }) => {
        const requested = params.protocolVersion;
        if (typeof requested !== "string") {
          throw new JsonRpcError(
            JsonRpcCode.InvalidParams,
            `Invalid params for initialize: params.protocolVersion must be a string such as ${LATEST_PROTOCOL_VERSION}`,
          );
        }
        return {
          protocolVersion: LEGACY_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION,
          capabilities: this.capabilities("legacy"),
          serverInfo: this.#serverInfo,
          ...(info.instructions === undefined ? {} : { instructions: info.instructions }),
        };
      },
    });
    on("ping", { era: "legacy", run: () => ({}) });
    on("server/discover", {
      era: "modern",
      run: () => ({
        supportedVersions: [...MODERN_PROTOCOL_VERSIONS],
        capabilities: this.capabilities("modern"),
        ...(info.instructions === undefined ? {} : { instructions: info.instructions }),
      }),
      cache: () => ({ ttlMs: this.#discoverTtlMs, scope: "public" }),
    });
    on("tools/list", {
      era: "both",
      run: ({ scope }) => ({ tools: runtime.listTools(runtime.viewFor(scope.authInfo), scope.authInfo) }),
      cache: definitions,
    });
    on("tools/call", { era: "both", run: (call) => this.#callTool(call) });
    on("logging/setLevel", {
      era: "legacy",
      run: ({ params, scope }) => {
        // A stateless request accepts it for clients that always send it, and keeps nothing.
        const level = checkLogLevel(params);
        if (scope.connection) scope.connection.logLevel = level;
        return {};
      },
    });
    if (runtime.hasResources) {
      on("resources/list", {
        era: "both",
        run: async (call) => ({ resources: await runtime.listResources(base(call)) }),
        cache: (call) => perCaller(runtime.resourceListCache, call),
      });
      on("resources/templates/list", {
        era: "both",
        run: ({ scope }) => ({ resourceTemplates: runtime.listResourceTemplates(scope.authInfo) }),
        cache: definitions,
      });
      on("resources/read", {
        era: "both",
        run: (call) =>
          runtime.readResource(
            requireString("resources/read", call.params, "uri", "the resource URI (a non-empty string)"),
            base(call),
            call.frame,
          ),
        // A read answered per caller (scopes, canAccess) is private too: a shared cache must not
        // hand it to a caller who may not read it.
        cache: (call) => perCaller(runtime.resourceCache(String(call.params.uri)), call),
      });
      on("resources/subscribe", {
        era: "legacy",
        connectionOnly: true,
        run: ({ params, scope }) => {
          const uri = requireString("resources/subscribe", params, "uri", "the resource URI (a non-empty string)");
          const access = runtime.access(scope.authInfo, "resource", uri);
          if (!access.ok && !access.hidden) {
            throw insufficientScopeError(`resources/subscribe ${uri}`, access, scope.authInfo);
          }
          if (!runtime.knowsResource(uri, scope.authInfo)) {
            throw new JsonRpcError(
              JsonRpcCode.ResourceNotFound,
              `Resource not found: ${uri}; subscribe to a URI from resources/list or a resource template`,
            );
          }
          scope.connection?.subscriptions.add(uri);
          return {};
        },
      });
      on("resources/unsubscribe", {
        era: "legacy",
        connectionOnly: true,
        run: ({ params, scope }) => {
          const uri = requireString("resources/unsubscribe", params, "uri", "the resource URI (a non-empty string)");
          scope.connection?.subscriptions.delete(uri);
          return {};
        },
      });
    }
    if (runtime.hasPrompts) {
      on("prompts/list", {
        era: "both",
        run: ({ scope }) => ({ prompts: runtime.listPrompts(scope.authInfo) }),
        cache: definitions,
      });
      on("prompts/get", { era: "both", run: (call) => this.#getPrompt(call) });
    }
    if (runtime.hasResources || runtime.hasPrompts) {
      on("completion/complete", {
        era: "both",
        run: (call) => {
          const { ref, argument, context } = completionParams(call.params);
          return runtime.complete(ref, argument, context, base(call));
        },
      });
    }
    on("subscriptions/listen", { era: "modern", run: (call) => this.#listen(call) });
  }
}

/** Whether a change to `uri` concerns a listener of `watched` (the URI itself or one below it). */
/** Whether the caller knows the resource at `uri` and may read it. */
function readable(runtime: Runtime, uri: string, auth: AuthInfo | undefined): boolean {
  return runtime.knowsResource(uri, auth) && runtime.access(auth, "resource", uri).ok;
}

function matches(watched: ReadonlySet<string>, uri: string): boolean {
  if (watched.has(uri)) return true;
  for (const w of watched) if (uri.startsWith(w.endsWith("/") ? w : `${w}/`)) return true;
  return false;
}

/** The scope's signal as a CancelSignal, read only when a listener is added. */
function lazySignal(scope: CallScope): CancelSignal {
  return {
    get aborted() {
      return scope.signal.aborted;
    },
    get reason() {
      return scope.signal.reason;
    },
    addEventListener: (type, listener, options) => scope.signal.addEventListener(type, listener, options),
    removeEventListener: (type, listener) => scope.signal.removeEventListener(type, listener),
  };
}
