import type {
  CallToolResult,
  CompleteResult,
  GetPromptResult,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
} from "@modelcontextprotocol/sdk/types.js";
import {
  ERROR_META_KEY,
  invalidArgumentsResult,
  isToolError,
  maskInternalError,
  PermissionDeniedError,
  toolErrorResult,
  toToolErrorResult,
  type ValidationIssue,
} from "@toolshed/errors";
import { formatIssue, internalErrorMessage } from "@toolshed/errors/internal";
import type {
  AnyPrompt,
  AnyResourceTemplate,
  AnyTool,
  AuthInfo,
  CacheHint,
  Completer,
  Logger,
  Pack,
  RequestContext,
  ResourceBody,
  ResourceDefinition,
  TextFormat,
  ToolContext,
  ToolListing,
} from "@toolshed/schema";
import { checkUniqueNames, toPromptResult } from "@toolshed/schema/internal";
import {
  ACCESS_HIDDEN,
  ACCESS_OK,
  type Access,
  type AccessKind,
  type AccessTarget,
  type CanAccess,
  insufficientScopeError,
  missingScopes,
  type ScopeDenied,
  scopesOf,
} from "./access.js";
import { reportCoercions } from "./coercions.js";
import { InputRound } from "./input-round.js";
import { JsonRpcCode, JsonRpcError } from "./jsonrpc-error.js";
import {
  callContext,
  checkResultObject,
  checkToolResult,
  INPUT_REQUIRED,
  type MiddlewareFrame,
  type MiddlewareStack,
  runChain,
  toolErrorAsProtocolError,
} from "./middleware.js";
import { answerTooLarge, DEFAULT_MAX_RESULT_BYTES, jsonSizeOver, resultTooLarge } from "./result-size.js";
import { type CallOutcome, type CancelSignal, outcomeOf, runTool } from "./run-tool.js";
import { unknownToolMessage } from "./unknown-tool-hint.js";

/** What a tools/call ended as: the outcome class, or `input_required` (a 2026-07-28 round that asks the client). */
export type ToolCallOutcome = CallOutcome | "input_required";

/** Hears the outcome of each tools/call the runtime answers with a result (the "tool call" log line's `outcome`). */
export type ToolOutcomeListener = (name: string, outcome: ToolCallOutcome) => void;

/** What a request may see and do. */
export interface RequestView {
  /** Only read-only tools are listed and callable (C14). */
  readOnly: boolean;
}

export interface RuntimeOptions {
  packs: readonly Pack[];
  readOnly?: boolean;
  logger: Logger;
  textFormat?: TextFormat;
  /** Server-wide call timeout in ms (default 30 000); a tool's own timeout wins. 0 turns it off. */
  timeoutMs?: number;
  /**
   * Largest JSON of one tool result, resources/read or prompts/get answer in bytes (default 4 MiB,
   * DEFAULT_MAX_RESULT_BYTES); a larger tool result is answered with a `too_large` tool error, a
   * larger read or prompt with JSON-RPC -32603 (`data.code` "too_large"). 0 turns the check off.
   */
  maxResultBytes?: number;
  /** Whether a request with these credentials is limited to read-only tools (C14). */
  isReadOnlyRequest?: (authInfo: AuthInfo | undefined) => boolean;
  /**
   * Decides per caller and definition what scopes cannot: false hides the definition (lists leave it
   * out, calls answer as if it did not exist). Called with `undefined` for callers without credentials.
   */
  canAccess?: CanAccess;
  /** Middleware around calls (and, read by the protocol core, around requests). */
  middleware?: MiddlewareStack;
  /** Lax coercion of tool arguments that fail as sent (default true; a tool's `coerce: false` wins). */
  coerce?: boolean;
  /** Whether coercions are counted in the OpenTelemetry metric (default true). */
  telemetry?: boolean;
}

/** Credentials with `tools:read` but not `tools:write` are read-only. */
export function defaultIsReadOnlyRequest(authInfo: AuthInfo | undefined): boolean {
  if (!authInfo) return false;
  return authInfo.scopes.includes("tools:read") && !authInfo.scopes.includes("tools:write");
}

const MAX_COMPLETIONS = 100;
const NO_COERCION = { coerce: false } as const;
/** Lists of definitions change only when the server is redeployed. */
const DEFAULT_DEFINITIONS_TTL_MS = 5 * 60_000;
/** Data may change with any write: always fresh unless a pack says otherwise. */
const DEFAULT_DATA_TTL_MS = 0;

/** A resolved cache hint: what a 2026-07-28 list or read result carries. */
export interface CacheFields {
  ttlMs: number;
  /** Undefined: private for an authenticated caller, public otherwise. */
  scope: "public" | "private" | undefined;
}

function resolveHint(hints: readonly (CacheHint | undefined)[], ttlMs: number): CacheFields {
  // The shortest life and the strictest scope of the parts a result is made of.
  let ttl: number | undefined;
  let scope: CacheFields["scope"];
  for (const hint of hints) {
    if (hint?.ttlMs !== undefined) ttl = ttl === undefined ? hint.ttlMs : Math.min(ttl, hint.ttlMs);
    if (hint?.scope === "private" || (hint?.scope === "public" && scope === undefined)) scope = hint.scope;
  }
  return { ttlMs: ttl ?? ttlMs, scope };
}
/** The scopes every Toolshed server understands (C14), published with those the definitions name. */
const BUILT_IN_SCOPES = ["tools:read", "tools:write"];

const READ_ONLY_VIEW: RequestView = Object.freeze({ readOnly: true });
const FULL_VIEW: RequestView = Object.freeze({ readOnly: false });

function issuesText(issues: ValidationIssue[]): string {
  return issues.map(formatIssue).join("\n");
}

/**
 * Transport-independent core: every MCP operation on the mounted packs, keeping CONTRACT.md.
 * Built once per server and shared by all connections.
 */
export class Runtime {
  readonly tools = new Map<string, AnyTool>();
  readonly resources = new Map<string, ResourceDefinition>();
  readonly templates = new Map<string, AnyResourceTemplate>();
  readonly prompts = new Map<string, AnyPrompt>();
  readonly logger: Logger;
  /** The server's middleware, if it was given a stack (createServer always gives one). */
  readonly middleware: MiddlewareStack | undefined;
  readonly #options: RuntimeOptions;
  readonly #textFormat: TextFormat;
  readonly #listings: { all: ToolListing[]; readOnly: ToolListing[] };
  /** The tools behind #listings, in the same order. */
  readonly #listed: { all: AnyTool[]; readOnly: AnyTool[] };
  readonly #promptListings: PromptListing[];
  readonly #templateListings: ResourceTemplate[];
  /** Each definition as canAccess sees it, with its pack and scopes. */
  readonly #targets = new Map<object, AccessTarget>();
  readonly #canAccess: CanAccess | undefined;
  readonly #scopesSupported: readonly string[];
  /**
   * True when some definition needs a scope or `canAccess` is set: lists and calls are then
   * checked per caller. False keeps today's precomputed lists and calls without a check.
   */
  readonly filtersByCaller: boolean;
  /** Cache hints of tools/list, prompts/list and resources/templates/list. */
  readonly definitionsCache: CacheFields;
  /** Cache hint of resources/list. */
  readonly resourceListCache: CacheFields;

  constructor(options: RuntimeOptions) {
    checkUniqueNames(options.packs);
    this.#options = options;
    this.logger = options.logger;
    this.middleware = options.middleware;
    this.#textFormat = options.textFormat ?? "pretty";
    this.#canAccess = options.canAccess;
    const target = (kind: AccessKind, definition: AccessTarget["definition"], pack: Pack) => {
      const requiredScopes = scopesOf(pack, definition);
      const entry = { kind, name: definition.name, definition, pack, requiredScopes };
      this.#targets.set(definition, Object.freeze(entry) as AccessTarget);
    };
    for (const pack of options.packs) {
      for (const t of pack.tools) {
        this.tools.set(t.name, t);
        target("tool", t, pack);
      }
      for (const r of pack.resources) {
        this.resources.set(r.uri, r);
        target("resource", r, pack);
      }
      for (const t of pack.resourceTemplates) {
        this.templates.set(t.name, t);
        target("resourceTemplate", t, pack);
      }
      for (const p of pack.prompts) {
        this.prompts.set(p.name, p);
        target("prompt", p, pack);
      }
    }
    const named = new Set(BUILT_IN_SCOPES);
    for (const t of this.#targets.values()) for (const scope of t.requiredScopes) named.add(scope);
    this.#scopesSupported = Object.freeze([...named].sort());
    this.filtersByCaller =
      this.#canAccess !== undefined || [...this.#targets.values()].some((t) => t.requiredScopes.length > 0);
    this.definitionsCache = resolveHint(
      options.packs.map((p) => p.cache?.definitions),
      DEFAULT_DEFINITIONS_TTL_MS,
    );
    this.resourceListCache = resolveHint(
      options.packs.filter((p) => p.resources.length > 0 || p.resourceTemplates.length > 0).map((p) => p.cache?.data),
      DEFAULT_DATA_TTL_MS,
    );
    const tools = [...this.tools.values()];
    const readOnlyTools = tools.filter((t) => t.listing.annotations?.readOnlyHint === true);
    this.#listed = { all: tools, readOnly: readOnlyTools };
    this.#listings = { all: tools.map((t) => t.listing), readOnly: readOnlyTools.map((t) => t.listing) };
    this.#promptListings = [...this.prompts.values()].map(describePrompt);
    this.#templateListings = [...this.templates.values()].map(describeTemplate);
  }

  /**
   * The scopes this server's tokens may carry: `tools:read`, `tools:write` and every scope a
   * definition or pack names; sorted, each once (HTTP publishes them as `scopes_supported`).
   */
  scopesSupported(): string[] {
    return [...this.#scopesSupported];
  }

  /**
   * What a caller may do with one definition: `canAccess` false hides it; otherwise, for a caller
   * with credentials, every scope it needs (its pack's and its own) must be in the token.
   * Callers without credentials (a local server) are not checked for scopes. A `resource` is a URI
   * of a fixed resource or one a template matches; a `resourceTemplate` its URI template or name.
   * Unknown names are `{ok: true}`, so the usual not-found answer follows.
   */
  access(auth: AuthInfo | undefined, kind: AccessKind, nameOrUri: string): Access {
    if (!this.filtersByCaller) return ACCESS_OK;
    let definition: object | undefined;
    if (kind === "tool") definition = this.tools.get(nameOrUri);
    else if (kind === "prompt") definition = this.prompts.get(nameOrUri);
    else if (kind === "resourceTemplate") {
      definition =
        this.templates.get(nameOrUri) ?? [...this.templates.values()].find((t) => t.uriTemplate === nameOrUri);
    } else {
      const found = this.#findResource(nameOrUri, auth);
      return found === undefined ? ACCESS_OK : found === HIDDEN ? ACCESS_HIDDEN : found.access;
    }
    return definition === undefined ? ACCESS_OK : this.#accessTo(auth, definition);
  }

  /** The pack a tool belongs to, by the tool's name. */
  packOf(toolName: string): string | undefined {
    const tool = this.tools.get(toolName);
    return tool === undefined ? undefined : this.#targets.get(tool)?.pack.name;
  }

  /** Whether the caller may read some resource or template of the pack (so hear that its list changed). */
  seesResourcesOf(packName: string, auth: AuthInfo | undefined): boolean {
    if (!this.filtersByCaller) return true;
    for (const target of this.#targets.values()) {
      if (target.pack.name !== packName || (target.kind !== "resource" && target.kind !== "resourceTemplate")) continue;
      if (this.#accessTo(auth, target.definition).ok) return true;
    }
    return false;
  }

  /** The access of one known definition (not checked when nothing is guarded). */
  #accessTo(auth: AuthInfo | undefined, definition: object): Access {
    if (!this.filtersByCaller) return ACCESS_OK;
    const target = this.#targets.get(definition);
    if (target === undefined) return ACCESS_OK;
    if (this.#canAccess !== undefined && !this.#allows(auth, target)) return ACCESS_HIDDEN;
    if (auth === undefined || target.requiredScopes.length === 0) return ACCESS_OK;
    const missing = missingScopes(target.requiredScopes, auth);
    if (missing.length === 0) return ACCESS_OK;
    return { ok: false, hidden: false, requiredScopes: [...target.requiredScopes], missingScopes: missing };
  }

  #allows(auth: AuthInfo | undefined, target: AccessTarget): boolean {
    try {
      return (this.#canAccess as CanAccess)(auth, target) === true;
    } catch (error) {
      // Failing closed: a rule that cannot decide hides the definition, and the operator hears why.
      this.logger.warn(
        { err: error, kind: target.kind, name: target.name, clientId: auth?.clientId },
        `canAccess threw for ${target.kind} ${target.name}; it is hidden from this caller. Return true or false instead of throwing`,
      );
      return false;
    }
  }

  /** Whether this caller sees a definition in lists. */
  #visible(auth: AuthInfo | undefined, definition: object): boolean {
    return this.#accessTo(auth, definition).ok;
  }

  /**
   * The definition that answers a URI for this caller: the fixed resource, else the first template
   * that matches; hidden ones are passed over as if they did not exist. HIDDEN when only hidden ones match.
   */
  #findResource(uri: string, auth: AuthInfo | undefined): FoundResource | typeof HIDDEN | undefined {
    let hidden = false;
    const fixed = this.resources.get(uri);
    if (fixed) {
      const access = this.#accessTo(auth, fixed);
      if (access.ok || !access.hidden) return { definition: fixed, vars: undefined, access };
      hidden = true;
    }
    for (const t of this.templates.values()) {
      const vars = t.match(uri);
      if (!vars) continue;
      const access = this.#accessTo(auth, t);
      if (access.ok || !access.hidden) return { definition: t, vars, access };
      hidden = true;
    }
    return hidden ? HIDDEN : undefined;
  }

  get hasResources(): boolean {
    return this.resources.size > 0 || this.templates.size > 0;
  }

  get hasPrompts(): boolean {
    return this.prompts.size > 0;
  }

  viewFor(authInfo: AuthInfo | undefined): RequestView {
    const isReadOnly = this.#options.isReadOnlyRequest ?? defaultIsReadOnlyRequest;
    return this.#options.readOnly === true || isReadOnly(authInfo) ? READ_ONLY_VIEW : FULL_VIEW;
  }

  /** tools/list for this view and caller: read-only tools only for a read-only view (C14), and only what the caller may use. */
  listTools(view: RequestView, authInfo?: AuthInfo): ToolListing[] {
    const listings = view.readOnly ? this.#listings.readOnly : this.#listings.all;
    if (!this.filtersByCaller) return listings;
    const tools = view.readOnly ? this.#listed.readOnly : this.#listed.all;
    const out: ToolListing[] = [];
    for (let i = 0; i < tools.length; i++) {
      if (this.#visible(authInfo, tools[i] as AnyTool)) out.push(listings[i] as ToolListing);
    }
    return out;
  }

  /**
   * tools/call. Unknown tools, and tools hidden from this caller, are a protocol error (C12); so is a
   * tool whose scopes the caller's token lacks (-32003). Everything else is a result: invalid
   * arguments (C6), calls the view forbids (C14), and whatever the handler does. `onOutcome` hears
   * the outcome of every call answered with a result (what the "tool call" log line records).
   */
  async callTool(
    name: string,
    args: unknown,
    view: RequestView,
    base: Omit<ToolContext, "signal" | "toolName">,
    signal?: CancelSignal,
    onOutcome?: ToolOutcomeListener,
    frame?: MiddlewareFrame,
  ): Promise<CallToolResult> {
    const tool = this.tools.get(name);
    const access = tool === undefined ? ACCESS_OK : this.#accessTo(base.authInfo, tool);
    if (!tool || (!access.ok && access.hidden)) {
      // Names this caller can see only: a hidden tool is not even a "closest" match.
      throw new JsonRpcError(
        JsonRpcCode.InvalidParams,
        unknownToolMessage(
          name,
          this.listTools(view, base.authInfo).map((t) => t.name),
        ),
      );
    }
    if (!access.ok) throw insufficientScopeError(`tools/call ${name}`, access, base.authInfo);
    const started = performance.now();
    let result: CallToolResult;
    if (view.readOnly && tool.annotations.readOnlyHint !== true) {
      const allowed = this.listTools(view, base.authInfo).map((t) => t.name);
      const why = this.#options.readOnly ? "this server is read-only" : "your credentials allow read-only tools only";
      result = toolErrorResult(
        name,
        new PermissionDeniedError(
          `${why}; ${name} changes data. Read-only tools: ${allowed.length > 0 ? allowed.join(", ") : "none"}`,
        ),
      );
    } else {
      const parsed = tool.parseArguments(args, this.#options.coerce === false ? NO_COERCION : undefined);
      if (parsed.success && parsed.coercions !== undefined) {
        reportCoercions(base.logger, name, parsed.coercions, this.#options.telemetry !== false);
      }
      result = !parsed.success
        ? invalidArgumentsResult(name, parsed.issues)
        : frame === undefined
          ? await runTool(tool, parsed.data, base, signal, {
              timeoutMs: this.#options.timeoutMs ?? 30_000,
              textFormat: this.#textFormat,
              logger: base.logger,
            })
          : await this.#runToolThrough(frame, tool, parsed.data, base, signal);
    }
    // Before the outcome is logged, so the log says what the client got.
    const maxBytes = this.#options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
    if (maxBytes > 0) {
      const size = jsonSizeOver(result, maxBytes);
      if (size !== undefined) result = resultTooLarge(name, size, maxBytes);
    }
    // The request's logger: a transport may add its request id to every line.
    const logger = base.logger;
    const logs = logger.isLevelEnabled?.("info") !== false;
    if (!logs && onOutcome === undefined) return result;
    const outcome: ToolCallOutcome =
      signal instanceof InputRound && signal.needsInput ? "input_required" : outcomeOf(result);
    if (onOutcome !== undefined) {
      try {
        onOutcome(name, outcome);
      } catch (error) {
        logger.warn({ err: error, tool: name }, "onToolOutcome threw; the call's result is sent all the same");
      }
    }
    if (!logs) return result;
    const meta = result._meta?.[ERROR_META_KEY] as { code?: string; ref?: string } | undefined;
    logger.info(
      {
        tool: name,
        outcome,
        code: meta?.code,
        ref: meta?.ref,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
        requestId: base.requestId,
      },
      "tool call",
    );
    return result;
  }

  /**
   * A validated call through the tool-level middleware of the tool's pack. Runs after validation
   * (C6 answers never reach it) and around runTool, which never throws: a throw here is a
   * middleware's, answered like a handler's (a ToolError as a tool error, C8/C9; classified
   * failures, C10; anything else masked with a reference id and logged, C7).
   */
  async #runToolThrough(
    frame: MiddlewareFrame,
    tool: AnyTool,
    args: unknown,
    base: Omit<ToolContext, "signal" | "toolName">,
    signal: CancelSignal | undefined,
  ): Promise<CallToolResult> {
    const options = { timeoutMs: this.#options.timeoutMs ?? 30_000, textFormat: this.#textFormat, logger: base.logger };
    const pack = this.#packOf(tool);
    const chain = (this.middleware as MiddlewareStack).chainFor("tool", pack);
    if (chain.length === 0) return runTool(tool, args, base, signal, options);
    const ctx = callContext(frame, "tool", pack, tool, tool.name, undefined, args);
    const round = signal instanceof InputRound ? signal : undefined;
    // A round that stopped on a question: middleware sees INPUT_REQUIRED, the core answers input_required.
    let interim: CallToolResult | undefined;
    const last = async () => {
      const result = await runTool(tool, args, base, signal, options);
      if (!round?.needsInput) return result;
      interim = result;
      return INPUT_REQUIRED;
    };
    try {
      const value = await runChain(chain, ctx, last);
      if (interim !== undefined && round?.needsInput) return interim;
      return checkToolResult(value, tool.name);
    } catch (error) {
      return toToolErrorResult(error, tool.name, { logger: base.logger });
    }
  }

  #packOf(definition: object): string {
    return this.#targets.get(definition)?.pack.name ?? "";
  }

  /**
   * Runs a resource or prompt `body` through the call-level middleware of the definition's pack;
   * throws go through #guard like a handler's.
   */
  #through<T>(
    frame: MiddlewareFrame,
    kind: "resource" | "prompt",
    definition: ResourceDefinition | AnyResourceTemplate | AnyPrompt,
    uri: string | undefined,
    args: unknown,
    what: string,
    body: () => Promise<T>,
  ): Promise<T> {
    const pack = this.#packOf(definition);
    const chain = (this.middleware as MiddlewareStack).chainFor(kind, pack);
    if (chain.length === 0) return body();
    const ctx = callContext(frame, kind, pack, definition, definition.name, uri, args);
    return this.#guard(what, async () => checkResultObject<T>(await runChain(chain, ctx, body), what));
  }

  /** resources/list: the fixed resources and what each template lists, of those the caller (`ctx.authInfo`) may use. */
  async listResources(ctx: RequestContext): Promise<Resource[]> {
    const out: Resource[] = [];
    const auth = ctx.authInfo;
    for (const r of this.resources.values()) if (this.#visible(auth, r)) out.push(describeResource(r));
    for (const t of this.templates.values()) {
      if (this.#visible(auth, t)) out.push(...(await this.listTemplateResources(t, ctx)));
    }
    return out;
  }

  /** resources/templates/list, of the templates this caller may use. */
  listResourceTemplates(authInfo?: AuthInfo): ResourceTemplate[] {
    if (!this.filtersByCaller) return this.#templateListings;
    const templates = [...this.templates.values()];
    return this.#templateListings.filter((_, i) => this.#visible(authInfo, templates[i] as AnyResourceTemplate));
  }

  /** The cache hint of resources/read for a URI: its definition's, else its pack's data hint. */
  resourceCache(uri: string): CacheFields {
    const fixed = this.resources.get(uri);
    const definition = fixed ?? [...this.templates.values()].find((t) => t.match(uri) !== undefined);
    if (!definition) return { ttlMs: DEFAULT_DATA_TTL_MS, scope: undefined };
    // The definition's own hint wins over its pack's, field by field.
    const pack = this.#targets.get(definition)?.pack.cache?.data;
    return {
      ttlMs: definition.cache?.ttlMs ?? pack?.ttlMs ?? DEFAULT_DATA_TTL_MS,
      scope: definition.cache?.scope ?? pack?.scope,
    };
  }

  /**
   * True when a URI is a fixed resource or matches a template's form, and, given credentials, one
   * that caller may see (hidden ones are unknown to it).
   */
  knowsResource(uri: string, authInfo?: AuthInfo): boolean {
    if (this.filtersByCaller) {
      const found = this.#findResource(uri, authInfo);
      return found !== undefined && found !== HIDDEN;
    }
    if (this.resources.has(uri)) return true;
    for (const t of this.templates.values()) if (t.match(uri)) return true;
    return false;
  }

  /**
   * resources/read for the caller in `ctx.authInfo`: a resource hidden from it is not found; one
   * whose scopes its token lacks is -32003.
   */
  async readResource(uri: string, ctx: RequestContext, frame?: MiddlewareFrame): Promise<ReadResourceResult> {
    return this.#capped(
      `resources/read ${uri}`,
      await this.#readResource(uri, ctx, frame),
      "read a narrower resource (a template with a smaller page or range) or raise the server's result limit",
    );
  }

  /** A read or prompt answer within the per-result limit; else the error saying what to ask instead. */
  #capped<T>(what: string, answer: T, instead: string): T {
    const maxBytes = this.#options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
    if (maxBytes > 0) {
      const size = jsonSizeOver(answer, maxBytes);
      if (size !== undefined) throw answerTooLarge(what, size, maxBytes, instead);
    }
    return answer;
  }

  async #readResource(uri: string, ctx: RequestContext, frame?: MiddlewareFrame): Promise<ReadResourceResult> {
    const found = this.#findResource(uri, ctx.authInfo);
    if (found === undefined || found === HIDDEN) {
      const forms: string[] = [];
      for (const [key, r] of this.resources) if (this.#visible(ctx.authInfo, r)) forms.push(key);
      for (const t of this.templates.values()) if (this.#visible(ctx.authInfo, t)) forms.push(t.uriTemplate);
      throw new JsonRpcError(
        JsonRpcCode.ResourceNotFound,
        `Resource not found: ${uri}. Known resources: ${forms.length > 0 ? forms.join(", ") : "none"}`,
        { uri },
      );
    }
    if (!found.access.ok) throw insufficientScopeError(`resources/read ${uri}`, found.access, ctx.authInfo);
    const { definition } = found;
    if (frame !== undefined) return this.#readThrough(frame, uri, found, ctx);
    if (definition.kind === "resource") {
      const body = await this.#guard(`read ${uri}`, () => definition.read(ctx));
      return { contents: toContents(uri, body, definition.mimeType) };
    }
    const parsed = definition.parseParams(found.vars ?? {});
    if (!parsed.success) {
      throw new JsonRpcError(JsonRpcCode.InvalidParams, `Invalid resource URI ${uri}:\n${issuesText(parsed.issues)}`);
    }
    const body = await this.#guard(`read ${uri}`, () => definition.read(parsed.data, { ...ctx, uri }));
    return { contents: toContents(uri, body, definition.mimeType) };
  }

  /** resources/read of a found, allowed definition through the resource-level middleware. */
  async #readThrough(
    frame: MiddlewareFrame,
    uri: string,
    found: FoundResource,
    ctx: RequestContext,
  ): Promise<ReadResourceResult> {
    const what = `read ${uri}`;
    const { definition } = found;
    if (definition.kind === "resource") {
      const read = async () => ({
        contents: toContents(uri, await this.#guard(what, () => definition.read(ctx)), definition.mimeType),
      });
      return this.#through(frame, "resource", definition, uri, undefined, what, read);
    }
    const parsed = definition.parseParams(found.vars ?? {});
    if (!parsed.success) {
      throw new JsonRpcError(JsonRpcCode.InvalidParams, `Invalid resource URI ${uri}:\n${issuesText(parsed.issues)}`);
    }
    const read = async () => ({
      contents: toContents(
        uri,
        await this.#guard(what, () => definition.read(parsed.data, { ...ctx, uri })),
        definition.mimeType,
      ),
    });
    return this.#through(frame, "resource", definition, uri, parsed.data, what, read);
  }

  /** prompts/list, of the prompts this caller may use. */
  listPrompts(authInfo?: AuthInfo): PromptListing[] {
    if (!this.filtersByCaller) return this.#promptListings;
    const prompts = [...this.prompts.values()];
    return this.#promptListings.filter((_, i) => this.#visible(authInfo, prompts[i] as AnyPrompt));
  }

  /** A prompt this caller may see, or the unknown-prompt error; -32003 when its token lacks a scope. */
  #promptFor(name: string, auth: AuthInfo | undefined, action: string, known: boolean): AnyPrompt {
    const prompt = this.prompts.get(name);
    const access = prompt === undefined ? ACCESS_HIDDEN : this.#accessTo(auth, prompt);
    if (!prompt || (!access.ok && access.hidden)) {
      if (!known) throw new JsonRpcError(JsonRpcCode.InvalidParams, `Unknown prompt: ${name}`);
      const names = this.listPrompts(auth).map((p) => p.name);
      throw new JsonRpcError(
        JsonRpcCode.InvalidParams,
        `Unknown prompt: ${name}. Known prompts: ${names.length > 0 ? names.join(", ") : "none"}`,
      );
    }
    if (!access.ok) throw insufficientScopeError(action, access, auth);
    return prompt;
  }

  /** prompts/get for the caller in `ctx.authInfo` (hidden prompts are unknown; missing scopes -32003). */
  async getPrompt(
    name: string,
    args: unknown,
    ctx: RequestContext,
    frame?: MiddlewareFrame,
    round?: InputRound,
  ): Promise<GetPromptResult> {
    return this.#capped(
      `prompts/get ${name}`,
      await this.#getPrompt(name, args, ctx, frame, round),
      "get it again with arguments that select less, or raise the server's result limit",
    );
  }

  async #getPrompt(
    name: string,
    args: unknown,
    ctx: RequestContext,
    frame?: MiddlewareFrame,
    round?: InputRound,
  ): Promise<GetPromptResult> {
    const prompt = this.#promptFor(name, ctx.authInfo, `prompts/get ${name}`, true);
    const parsed = prompt.parseArgs(args);
    if (!parsed.success) {
      throw new JsonRpcError(
        JsonRpcCode.InvalidParams,
        `Invalid arguments for prompt ${name}:\n${issuesText(parsed.issues)}`,
      );
    }
    if (frame === undefined) {
      const body = await this.#guard(`prompt ${name}`, () => prompt.render(parsed.data, ctx));
      return toPromptResult(prompt, body);
    }
    const what = `prompt ${name}`;
    const render = async () => toPromptResult(prompt, await this.#guard(what, () => prompt.render(parsed.data, ctx)));
    // A prompt is not raced by runTool: in a 2026-07-28 round, a question ends the wait for it
    // here, so its middleware's next() settles (with INPUT_REQUIRED) instead of hanging.
    const body = round
      ? () => Promise.race([render(), round.stopped.then(() => INPUT_REQUIRED as unknown as GetPromptResult)])
      : render;
    return this.#through(frame, "prompt", prompt, undefined, parsed.data, what, body);
  }

  /** Every value a completer suggests, uncapped; unknown references are -32602. */
  async completionValues(
    ref: { type: string; name?: string; uri?: string },
    argument: { name: string; value: string },
    context: Record<string, string>,
    ctx: RequestContext,
  ): Promise<string[]> {
    let completers: Record<string, Completer | undefined> | undefined;
    const auth = ctx.authInfo;
    if (ref.type === "ref/prompt") {
      const name = ref.name ?? "";
      completers = this.#promptFor(name, auth, `completion/complete ${name}`, false).complete;
    } else if (ref.type === "ref/resource") {
      const uri = ref.uri ?? "";
      const template = [...this.templates.values()].find((t) => t.uriTemplate === uri);
      const definition = template ?? this.resources.get(uri);
      const unknown = () => new JsonRpcError(JsonRpcCode.InvalidParams, `Unknown resource template: ${ref.uri}`);
      if (definition === undefined) throw unknown();
      const access = this.#accessTo(auth, definition);
      if (!access.ok)
        throw access.hidden ? unknown() : insufficientScopeError(`completion/complete ${uri}`, access, auth);
      if (!template) return [];
      completers = template.complete;
    } else {
      throw new JsonRpcError(
        JsonRpcCode.InvalidParams,
        `Unknown reference type: ${ref.type}; use ref/prompt or ref/resource`,
      );
    }
    // Own keys only: an argument named "constructor" has no completer.
    const completer = completers && Object.hasOwn(completers, argument.name) ? completers[argument.name] : undefined;
    if (typeof completer !== "function") return [];
    return this.#guard(`complete ${argument.name}`, async () => {
      const values = await completer(argument.value, { ...ctx, arguments: context });
      if (!Array.isArray(values))
        throw new Error(`completer for ${argument.name} returned ${typeof values}, not a list`);
      return values.filter((v): v is string => typeof v === "string");
    });
  }

  /** completion/complete: at most 100 values, with the total. */
  async complete(
    ref: { type: string; name?: string; uri?: string },
    argument: { name: string; value: string },
    context: Record<string, string>,
    ctx: RequestContext,
  ): Promise<CompleteResult> {
    const all = await this.completionValues(ref, argument, context, ctx);
    return {
      completion: { values: all.slice(0, MAX_COMPLETIONS), total: all.length, hasMore: all.length > MAX_COMPLETIONS },
    };
  }

  /** The resources one template lists. */
  async listTemplateResources(template: AnyResourceTemplate, ctx: RequestContext): Promise<Resource[]> {
    if (!template.list) return [];
    const list = template.list;
    const listed = await this.#guard(`list resources of ${template.name}`, () => list(ctx));
    return listed.map((item) => ({
      ...(template.mimeType === undefined ? {} : { mimeType: template.mimeType }),
      ...item,
    }));
  }

  /** Runs a resource, prompt or completion handler; failures become JSON-RPC errors, masked unless tool errors. */
  async #guard<T>(what: string, fn: () => T | Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      if (error instanceof JsonRpcError) throw error;
      if (isToolError(error)) throw toolErrorAsProtocolError(what, error);
      const { ref } = maskInternalError(error, what, { logger: this.logger });
      throw new JsonRpcError(JsonRpcCode.InternalError, internalErrorMessage(ref));
    }
  }

  async close(): Promise<void> {
    for (const pack of this.#options.packs) await pack.close?.();
  }
}

const HIDDEN = Symbol("hidden");

/** The definition that answers a URI, and what this caller may do with it. */
type FoundResource =
  | { definition: ResourceDefinition; vars: undefined; access: { ok: true } | ScopeDenied }
  | { definition: AnyResourceTemplate; vars: Record<string, string | string[]>; access: { ok: true } | ScopeDenied };

/** One entry of prompts/list. */
export interface PromptListing {
  name: string;
  title?: string;
  description: string;
  arguments: unknown[];
}

function describePrompt(p: AnyPrompt): PromptListing {
  const out: PromptListing = {
    name: p.name,
    description: p.description,
    arguments: [...p.arguments],
  };
  if (p.title !== undefined) out.title = p.title;
  return out;
}

function describeTemplate(t: AnyResourceTemplate): ResourceTemplate {
  const out: ResourceTemplate = { uriTemplate: t.uriTemplate, name: t.name, description: t.description };
  if (t.title !== undefined) out.title = t.title;
  if (t.mimeType !== undefined) out.mimeType = t.mimeType;
  return out;
}

function describeResource(r: ResourceDefinition): Resource {
  const out: Resource = { uri: r.uri, name: r.name, description: r.description };
  if (r.title !== undefined) out.title = r.title;
  if (r.mimeType !== undefined) out.mimeType = r.mimeType;
  return out;
}

function toContents(uri: string, body: ResourceBody, mimeType: string | undefined): ReadResourceResult["contents"] {
  const items = typeof body === "string" ? [{ text: body }] : Array.isArray(body) ? body : [body];
  return items.map((item) => {
    const mime = item.mimeType ?? mimeType;
    const base = { uri: item.uri ?? uri, ...(mime === undefined ? {} : { mimeType: mime }) };
    return "blob" in item ? { ...base, blob: item.blob } : { ...base, text: item.text };
  });
}
