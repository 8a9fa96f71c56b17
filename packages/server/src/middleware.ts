import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ERROR_META_KEY, type ToolError, toolErrorResult } from "@toolshed/errors";
import type {
  AnyPrompt,
  AnyResourceTemplate,
  AnyTool,
  AuthInfo,
  Logger,
  Pack,
  ResourceDefinition,
} from "@toolshed/schema";
import type { Era } from "./era.js";
import { JsonRpcCode, JsonRpcError } from "./jsonrpc-error.js";

// Middleware: functions around every request and every tool, resource and prompt call, in both
// eras and on every transport (they all answer through ProtocolCore). Koa/Hono style: the first
// registered is the outermost; server-level call middleware runs outside pack-level middleware.

/** Where a middleware runs: around a whole request, or around one tool, resource or prompt call. */
export type MiddlewareKind = "request" | "tool" | "resource" | "prompt";

const KINDS: readonly MiddlewareKind[] = ["request", "tool", "resource", "prompt"];
const CALL_KINDS: readonly MiddlewareKind[] = ["tool", "resource", "prompt"];

/** What every middleware sees, whatever it wraps. */
export interface MiddlewareContextBase {
  /** The JSON-RPC method of the request (`tools/call`, `tools/list`, `resources/read`, …). */
  readonly method: string;
  /** The request's protocol era: `modern` (2026-07-28) or `legacy` (2025 revisions). */
  readonly era: Era;
  /** The JSON-RPC id of the request. */
  readonly requestId: string | number;
  /** The caller's verified credentials, when the transport authenticated it. */
  readonly authInfo: AuthInfo | undefined;
  /** The session id, on transports that have sessions. */
  readonly sessionId: string | undefined;
  /** Aborted when the client cancels or goes away (made when first read). */
  readonly signal: AbortSignal;
  /** The request's params as the client sent them (not yet checked: may be anything). */
  readonly params: unknown;
  /** The request's server-side logger. */
  readonly logger: Logger;
  /**
   * Data middleware share: one Map per request, the same for the request-level middleware and
   * for the call-level middleware of the call inside it (say, a span to parent the next one on).
   */
  readonly state: Map<unknown, unknown>;
}

/** Around a whole request (every method, before its params are checked). */
export interface RequestMiddlewareContext extends MiddlewareContextBase {
  readonly kind: "request";
}

/** Around a tool's handler, after its arguments were validated. */
export interface ToolMiddlewareContext extends MiddlewareContextBase {
  readonly kind: "tool";
  /** The name of the pack the tool belongs to. */
  readonly pack: string;
  readonly definition: AnyTool;
  /** The tool's name. */
  readonly name: string;
  /** The arguments the handler gets: validated, with Zod defaults filled in. Read them; do not change them. */
  readonly arguments: Readonly<Record<string, unknown>>;
}

/** Around a resource read, after the URI was matched (and a template's parameters validated). */
export interface ResourceMiddlewareContext extends MiddlewareContextBase {
  readonly kind: "resource";
  readonly pack: string;
  readonly definition: ResourceDefinition | AnyResourceTemplate;
  /** The resource's or template's `name`. */
  readonly name: string;
  /** The URI being read. */
  readonly uri: string;
  /** A template's validated URI parameters; undefined for a fixed resource. */
  readonly arguments: Readonly<Record<string, unknown>> | undefined;
}

/** Around a prompt's render, after its arguments were validated. */
export interface PromptMiddlewareContext extends MiddlewareContextBase {
  readonly kind: "prompt";
  readonly pack: string;
  readonly definition: AnyPrompt;
  readonly name: string;
  /** The arguments the prompt gets: validated, with defaults filled in. */
  readonly arguments: Readonly<Record<string, unknown>>;
}

export type MiddlewareContext =
  | RequestMiddlewareContext
  | ToolMiddlewareContext
  | ResourceMiddlewareContext
  | PromptMiddlewareContext;

/**
 * A function around a request or a call. `next()` runs the rest of the chain and resolves to the
 * result (a request's result object; for a tool the CallToolResult, error results included; for a
 * resource the ReadResourceResult; for a prompt the GetPromptResult). Return it, or another value
 * of the same kind to answer instead (without calling `next()` to short-circuit). A throw is
 * answered like a handler's throw: see `ToolshedServer.use`. In a 2026-07-28 round that stops
 * on a question to the client, a tool's or prompt's `next()` resolves to
 * `{resultType: "input_required"}` (the request-level middleware sees the full input_required answer).
 */
export type Middleware = (ctx: MiddlewareContext, next: () => Promise<unknown>) => Promise<unknown>;

/** Where a middleware is used. */
export interface UseOptions {
  /** Only around the calls of this pack's tools, resources and prompts (inside the server-level middleware). */
  pack?: string;
  /**
   * Only around these kinds (default: every kind, so a server-level middleware runs around a
   * tools/call request and again, with `kind: "tool"`, around the tool; a pack's: its calls).
   */
  kinds?: readonly MiddlewareKind[];
}

/** One entry of `createServer({middleware})` that needs options: `{use: mw, pack: "notes"}`. */
export interface MiddlewareRegistration extends UseOptions {
  use: Middleware;
}

/**
 * What `next()` resolves to in a 2026-07-28 round that stopped on a question to the client
 * (elicitation, sampling, roots): the call ends here and the client gets `input_required`,
 * with the questions and a request state (the request-level middleware sees that full result).
 */
export const INPUT_REQUIRED: Readonly<{ resultType: "input_required" }> = Object.freeze({
  resultType: "input_required" as const,
});

const EMPTY: readonly Middleware[] = Object.freeze([]);

/** The middleware of one server, by kind and pack; fixed once the server answers its first request. */
export class MiddlewareStack {
  readonly #packs: ReadonlySet<string>;
  readonly #server: Array<{ use: Middleware; kinds: readonly MiddlewareKind[] }> = [];
  readonly #byPack = new Map<string, Array<{ use: Middleware; kinds: readonly MiddlewareKind[] }>>();
  readonly #chains = new Map<string, readonly Middleware[]>();
  #sealed = false;
  /** True once any middleware is registered: requests then go through the middleware path. */
  active = false;
  /** The request-level chain (empty when none). */
  request: readonly Middleware[] = EMPTY;

  constructor(packs: readonly Pack[]) {
    this.#packs = new Set(packs.map((p) => p.name));
  }

  add(use: Middleware, options: UseOptions = {}): void {
    if (this.#sealed) {
      throw new Error(
        "use() was called after the server answered its first request; register middleware before serving: right after createServer, or in createServer({middleware: [...]})",
      );
    }
    if (typeof use !== "function") {
      throw new TypeError(
        `use() needs a middleware function (ctx, next) => Promise (got ${use === null ? "null" : typeof use})`,
      );
    }
    const { pack } = options;
    const kinds = options.kinds ?? (pack === undefined ? KINDS : CALL_KINDS);
    for (const kind of kinds) {
      if (!KINDS.includes(kind)) {
        throw new TypeError(`use(): unknown kind "${String(kind)}"; use one of ${KINDS.join(", ")}`);
      }
    }
    if (pack === undefined) {
      this.#server.push({ use, kinds });
    } else {
      if (!this.#packs.has(pack)) {
        throw new Error(
          `use(): no pack named "${pack}" on this server; mounted packs: ${[...this.#packs].join(", ") || "none"}`,
        );
      }
      if (kinds.includes("request")) {
        throw new Error(
          `use(): a middleware of pack "${pack}" runs around its calls only (kinds tool, resource, prompt); register request middleware without \`pack\``,
        );
      }
      const list = this.#byPack.get(pack) ?? [];
      list.push({ use, kinds });
      this.#byPack.set(pack, list);
    }
    this.#chains.clear();
    this.request = this.#server.filter((m) => m.kinds.includes("request")).map((m) => m.use);
    this.active = true;
  }

  /** No more middleware after this (called when the server starts answering). */
  seal(): void {
    this.#sealed = true;
  }

  /** The call-level chain of a pack's definitions of one kind: the server's first, then the pack's. */
  chainFor(kind: Exclude<MiddlewareKind, "request">, pack: string): readonly Middleware[] {
    const key = `${kind}\u0000${pack}`;
    let chain = this.#chains.get(key);
    if (chain === undefined) {
      chain = [...this.#server, ...(this.#byPack.get(pack) ?? [])]
        .filter((m) => m.kinds.includes(kind))
        .map((m) => m.use);
      this.#chains.set(key, chain);
    }
    return chain;
  }
}

/** What a transport gives a request, as middleware reads it (lazily: reading `signal` may make one). */
interface ScopeLike {
  readonly authInfo?: AuthInfo;
  readonly sessionId?: string;
  readonly signal: AbortSignal;
  readonly logger: Logger;
}

/** One request as its middleware sees it; the calls inside it share its `state`. */
export class MiddlewareFrame {
  readonly method: string;
  readonly era: Era;
  readonly requestId: string | number;
  readonly params: unknown;
  readonly scope: ScopeLike;
  #state: Map<unknown, unknown> | undefined;

  constructor(method: string, era: Era, requestId: string | number, params: unknown, scope: ScopeLike) {
    this.method = method;
    this.era = era;
    this.requestId = requestId;
    this.params = params;
    this.scope = scope;
  }

  get state(): Map<unknown, unknown> {
    this.#state ??= new Map();
    return this.#state;
  }
}

/** A middleware's context: a class with getters, so nothing is read from the scope unless asked. */
class Context {
  readonly kind: MiddlewareKind;
  readonly pack: string | undefined;
  readonly definition: unknown;
  readonly name: string | undefined;
  readonly uri: string | undefined;
  readonly arguments: unknown;
  readonly #frame: MiddlewareFrame;

  constructor(
    frame: MiddlewareFrame,
    kind: MiddlewareKind,
    pack?: string,
    definition?: unknown,
    name?: string,
    uri?: string,
    args?: unknown,
  ) {
    this.#frame = frame;
    this.kind = kind;
    this.pack = pack;
    this.definition = definition;
    this.name = name;
    this.uri = uri;
    this.arguments = args;
  }

  get method(): string {
    return this.#frame.method;
  }
  get era(): Era {
    return this.#frame.era;
  }
  get requestId(): string | number {
    return this.#frame.requestId;
  }
  get params(): unknown {
    return this.#frame.params;
  }
  get authInfo(): AuthInfo | undefined {
    return this.#frame.scope.authInfo;
  }
  get sessionId(): string | undefined {
    return this.#frame.scope.sessionId;
  }
  get signal(): AbortSignal {
    return this.#frame.scope.signal;
  }
  get logger(): Logger {
    return this.#frame.scope.logger;
  }
  get state(): Map<unknown, unknown> {
    return this.#frame.state;
  }
}

export function requestContext(frame: MiddlewareFrame): RequestMiddlewareContext {
  return new Context(frame, "request") as unknown as RequestMiddlewareContext;
}

export function callContext(
  frame: MiddlewareFrame,
  kind: Exclude<MiddlewareKind, "request">,
  pack: string,
  definition: object,
  name: string,
  uri: string | undefined,
  args: unknown,
): MiddlewareContext {
  return new Context(frame, kind, pack, definition, name, uri, args) as unknown as MiddlewareContext;
}

/**
 * Runs `chain` around `last`, first middleware outermost. A middleware that throws synchronously
 * rejects like an async one; calling `next()` twice is a programming error, rejected.
 */
export function runChain(
  chain: readonly Middleware[],
  ctx: MiddlewareContext,
  last: () => Promise<unknown>,
): Promise<unknown> {
  const step = (index: number): Promise<unknown> => {
    const middleware = chain[index];
    if (middleware === undefined) return last();
    let called = false;
    const next = () => {
      if (called) {
        return Promise.reject(
          new Error(`middleware #${index + 1} of ${ctx.kind} ${ctx.method} called next() twice; call it once`),
        );
      }
      called = true;
      return step(index + 1);
    };
    try {
      return Promise.resolve(middleware(ctx, next));
    } catch (error) {
      return Promise.reject(error);
    }
  };
  return step(0);
}

/** What a value is, for the message of a middleware that answered with the wrong thing. */
function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object without the expected fields" : typeof value;
}

/** A tool middleware's answer must be a CallToolResult; anything else is a server fault (C7, like C3). */
export function checkToolResult(value: unknown, name: string): CallToolResult {
  if (typeof value === "object" && value !== null && Array.isArray((value as { content?: unknown }).content)) {
    return value as CallToolResult;
  }
  throw new Error(
    `a middleware answered the call of tool ${name} with ${describe(value)}, not a CallToolResult; return what next() resolved to, or a full result ({content: [...]})`,
  );
}

/** A request, resource or prompt middleware's answer must be a result object. */
export function checkResultObject<T>(value: unknown, what: string): T {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as T;
  throw new Error(
    `a middleware answered ${what} with ${describe(value)}, not a result object; return what next() resolved to`,
  );
}

/**
 * A ToolError thrown outside a tool call (a request-level middleware, a resource or prompt handler)
 * as the JSON-RPC error a client gets: its message, and its class in `data` (C9).
 */
export function toolErrorAsProtocolError(what: string, error: ToolError): JsonRpcError {
  const code =
    error.code === "not_found"
      ? JsonRpcCode.ResourceNotFound
      : error.code === "invalid_arguments"
        ? JsonRpcCode.InvalidParams
        : JsonRpcCode.InternalError;
  return new JsonRpcError(code, error.message, {
    [ERROR_META_KEY]: toolErrorResult(what, error)._meta[ERROR_META_KEY],
  });
}
