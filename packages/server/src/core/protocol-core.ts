import type {
  JSONRPCErrorResponse,
  JSONRPCRequest,
  JSONRPCResultResponse,
  ServerCapabilities,
} from "@modelcontextprotocol/sdk/types.js";
import { isToolError } from "@toolshed/errors";
import type { AuthInfo } from "@toolshed/schema";
import { ACCESS_OK, type RequestAccess } from "../access.js";
import { type ChangeBus, LocalChangeBus } from "../changes.js";
import { readEnvelope } from "../envelope.js";
import { type Era, isModernMeta, type Meta, metaOf } from "../era.js";
import type { JsonRpcError } from "../jsonrpc-error.js";
import {
  checkResultObject,
  MiddlewareFrame,
  type MiddlewareStack,
  requestContext,
  runChain,
  toolErrorAsProtocolError,
} from "../middleware.js";
import { paramsOf } from "../params.js";
import { RequestStateCodec } from "../request-state.js";
import type { CacheFields } from "../runtime/cache-hints.js";
import type { Runtime } from "../runtime/runtime.js";
import { ServerTelemetry, TelemetryAttr } from "../telemetry.js";
import { asProtocolError, methodNotFound, modernResult } from "./answer.js";
import { capabilitiesOf } from "./capabilities.js";
import { httpStatusOf } from "./http-status.js";
import { guardedTarget } from "./method-targets.js";
import { methodTable } from "./methods.js";
import { checkTaskOptions, TaskRunner } from "./tasks.js";
import type { Answer, Call, CallScope, CoreParts, Entry, ProtocolCoreOptions, Reply, ServerInfo } from "./types.js";

/** One request as the core's steps hand it on, its `_meta` and era read once. */
interface Incoming {
  method: string;
  rawParams: unknown;
  id: string | number;
  scope: CallScope;
  era: Era;
  meta: Meta | undefined;
}

/** The request's `_meta` as the transport read it (or read here), and its era: the transport's, or by `_meta`. */
function incoming(method: string, rawParams: unknown, id: string | number, scope: CallScope): Incoming {
  const meta = scope.meta === undefined ? metaOf(rawParams) : (scope.meta ?? undefined);
  const era: Era = scope.era ?? (isModernMeta(method, meta) ? "modern" : "legacy");
  return { method, rawParams, id, scope, era, meta };
}

/**
 * The one protocol core: every MCP method, in both eras, for every transport. A request whose
 * `_meta` names a protocol version (or `server/discover`) follows 2026-07-28: its envelope is
 * checked, its result carries `resultType`, server info and cache hints, and questions to the
 * client are multi round-trip. Anything else follows the 2025 revisions. The method table
 * (methods.ts) says what each method does; this class finds the entry, runs it through the
 * middleware and telemetry, and shapes the answer.
 */
export class ProtocolCore {
  readonly runtime: Runtime;
  readonly info: ServerInfo;
  readonly changes: ChangeBus;
  readonly #parts: CoreParts;
  readonly #methods: Map<string, Entry>;
  readonly #listChangedOf = new Map<string, () => void>();
  readonly #telemetry: ServerTelemetry | undefined;

  constructor(runtime: Runtime, info: ServerInfo, options: ProtocolCoreOptions = {}) {
    // Bad task options fail at start, whether or not a tool runs as a task.
    if (options.tasks) checkTaskOptions(options.tasks);
    this.runtime = runtime;
    this.info = info;
    const changes = options.changes ?? new LocalChangeBus();
    this.changes = changes;
    const serverInfo: CoreParts["serverInfo"] = { name: info.name, version: info.version };
    if (info.title !== undefined) serverInfo.title = info.title;
    const resourceListChanged = () => changes.publish({ type: "resources/list_changed" });
    this.#parts = {
      runtime,
      info,
      serverInfo,
      changes,
      state: new RequestStateCodec(options.requestState),
      discoverTtlMs: options.discoverTtlMs ?? 5 * 60_000,
      onToolOutcome: options.onToolOutcome,
      listeners: new Set(),
      // Only a server with a tool that may run as a task offers the extension.
      tasks:
        options.tasks !== false && [...runtime.tools.values()].some((tool) => tool.task !== "forbidden")
          ? new TaskRunner(options.tasks ?? {})
          : undefined,
      hooks: {
        resourceUpdated: (uri) => changes.publish({ type: "resources/updated", uri }),
        resourceListChanged,
        listChangedBy: (toolName) => this.#listChangedBy(toolName, resourceListChanged),
      },
    };
    this.#methods = methodTable(this.#parts);
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
  }

  /**
   * What the server offers. A 2025 connection can be told of changes; a stateless 2025 request
   * cannot (no stream outlives it); a 2026-07-28 client hears them through subscriptions/listen.
   */
  capabilities(era: Era, connection = false): ServerCapabilities {
    return capabilitiesOf(this.runtime, era, connection);
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
    return this.#handleIn(incoming(method, rawParams, id, scope));
  }

  #handleIn(req: Incoming): Promise<unknown> {
    const recorder = this.#telemetry?.recorder();
    if (recorder === undefined) return this.#answer(req);
    const { method, rawParams, id, scope, era } = req;
    return this.#telemetry?.observe(recorder, method, rawParams, id, scope, era, () =>
      this.#answer(req),
    ) as Promise<unknown>;
  }

  async #answer(req: Incoming): Promise<unknown> {
    const middleware = this.runtime.middleware;
    if (middleware !== undefined) {
      middleware.seal();
      if (middleware.active) return this.#handleThrough(middleware, req);
    }
    try {
      const [entry, call] = this.#callOf(req, undefined);
      const result = (await entry.run(call)) as Record<string, unknown>;
      if (req.era === "legacy") return result;
      return modernResult(result, entry.cache?.(call), req.scope, this.#parts.serverInfo);
    } catch (error) {
      throw this.#asProtocolError(error, req);
    }
  }

  /** The request's params and envelope checked and its method table entry found (each throws the answer's error). */
  #callOf(req: Incoming, frame: MiddlewareFrame | undefined): [Entry, Call] {
    const { method, rawParams, id, scope, era, meta } = req;
    const params = paramsOf(method, rawParams);
    const envelope = era === "modern" ? readEnvelope(method, meta) : undefined;
    const entry = this.#entryFor(method, era, scope);
    return [entry, { method, params, id, scope, era, envelope, meta, frame }];
  }

  #entryFor(method: string, era: Era, scope: CallScope): Entry {
    const entry = this.#methods.get(method);
    if (!entry || (entry.era !== "both" && entry.era !== era) || (entry.connectionOnly && !scope.connection)) {
      throw methodNotFound();
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
  async #handleThrough(middleware: MiddlewareStack, req: Incoming): Promise<unknown> {
    const { method, rawParams, id, scope, era } = req;
    const frame = new MiddlewareFrame(method, era, id, rawParams, scope);
    let cache: CacheFields | undefined;
    const run = async () => {
      const [entry, call] = this.#callOf(req, frame);
      const result = await entry.run(call);
      cache = entry.cache?.(call);
      return result;
    };
    try {
      const chain = middleware.request;
      const value = chain.length === 0 ? await run() : await runChain(chain, requestContext(frame), run);
      const result = checkResultObject<Record<string, unknown>>(value, method);
      if (era === "legacy") return result;
      return modernResult(result, cache, scope, this.#parts.serverInfo);
    } catch (error) {
      const cause = isToolError(error) ? toolErrorAsProtocolError(method, error) : error;
      throw this.#asProtocolError(cause, req);
    }
  }

  #asProtocolError(error: unknown, { era, method, rawParams, scope }: Incoming): JsonRpcError {
    return asProtocolError(error, era, method, rawParams, scope.logger, (masked, ref) =>
      this.#telemetry?.refs.set(masked, ref),
    );
  }

  /**
   * `handle` as a JSON-RPC answer and the HTTP status it goes out with (200, or what a 2026-07-28
   * error calls for: see core/http-status.ts); never throws.
   */
  async reply(request: JSONRPCRequest, scope: CallScope): Promise<Reply> {
    const { id } = request;
    const req = incoming(request.method, request.params, id, scope);
    try {
      const result = (await this.#handleIn(req)) as JSONRPCResultResponse["result"];
      return { answer: { jsonrpc: "2.0", id, result }, status: 200 };
    } catch (error) {
      const e = error as JsonRpcError;
      const err: JSONRPCErrorResponse["error"] = { code: e.code, message: e.message };
      if (e.data !== undefined) err.data = e.data;
      return { answer: { jsonrpc: "2.0", id, error: err }, status: httpStatusOf(e, req.era) };
    }
  }

  /** `reply` without the status, for transports with no HTTP status (in memory). */
  async dispatch(request: JSONRPCRequest, scope: CallScope): Promise<Answer> {
    return (await this.reply(request, scope)).answer;
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

  /** The tool's ctx.resourceListChanged: the event names the tool's pack, so listeners who cannot see it are not told. */
  #listChangedBy(toolName: string, resourceListChanged: () => void): () => void {
    let publish = this.#listChangedOf.get(toolName);
    if (publish === undefined) {
      const pack = this.runtime.packOf(toolName);
      publish =
        pack === undefined ? resourceListChanged : () => this.changes.publish({ type: "resources/list_changed", pack });
      this.#listChangedOf.set(toolName, publish);
    }
    return publish;
  }

  /** Ends every subscriptions/listen stream with its final result (the server is closing). */
  close(): void {
    for (const end of [...this.#parts.listeners]) end();
  }

  /** Stops the tasks running in this process (each ends failed, retryable) once their ends are written. */
  async closeTasks(): Promise<void> {
    await this.#parts.tasks?.close();
  }
}
