import type {
  CallToolResult,
  CompleteResult,
  GetPromptResult,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
} from "@modelcontextprotocol/sdk/types.js";
import {
  closestMatches,
  ERROR_META_KEY,
  formatIssue,
  invalidArgumentsResult,
  isToolError,
  maskInternalError,
  PermissionDeniedError,
  toolErrorResult,
  type ValidationIssue,
} from "@toolshed/errors";
import {
  type AnyPrompt,
  type AnyResourceTemplate,
  type AnyTool,
  type AuthInfo,
  type CacheHint,
  type Completer,
  checkUniqueNames,
  type Logger,
  type Pack,
  type RequestContext,
  type ResourceBody,
  type ResourceDefinition,
  type TextFormat,
  type ToolContext,
  type ToolListing,
  toPromptResult,
} from "@toolshed/schema";
import { InputRound } from "./input-round.js";
import { JsonRpcCode, JsonRpcError } from "./jsonrpc-error.js";
import { type CancelSignal, outcomeOf, runTool } from "./run-tool.js";

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
  /** Whether a request with these credentials is limited to read-only tools (C14). */
  isReadOnlyRequest?: (authInfo: AuthInfo | undefined) => boolean;
}

/** Credentials with `tools:read` but not `tools:write` are read-only. */
export function defaultIsReadOnlyRequest(authInfo: AuthInfo | undefined): boolean {
  if (!authInfo) return false;
  return authInfo.scopes.includes("tools:read") && !authInfo.scopes.includes("tools:write");
}

const MAX_COMPLETIONS = 100;
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
  readonly #options: RuntimeOptions;
  readonly #textFormat: TextFormat;
  readonly #listings: { all: ToolListing[]; readOnly: ToolListing[] };
  readonly #packOf = new Map<object, Pack>();
  /** Cache hints of tools/list, prompts/list and resources/templates/list. */
  readonly definitionsCache: CacheFields;
  /** Cache hint of resources/list. */
  readonly resourceListCache: CacheFields;

  constructor(options: RuntimeOptions) {
    checkUniqueNames(options.packs);
    this.#options = options;
    this.logger = options.logger;
    this.#textFormat = options.textFormat ?? "pretty";
    for (const pack of options.packs) {
      for (const t of pack.tools) this.tools.set(t.name, t);
      for (const r of pack.resources) {
        this.resources.set(r.uri, r);
        this.#packOf.set(r, pack);
      }
      for (const t of pack.resourceTemplates) {
        this.templates.set(t.name, t);
        this.#packOf.set(t, pack);
      }
      for (const p of pack.prompts) this.prompts.set(p.name, p);
    }
    this.definitionsCache = resolveHint(
      options.packs.map((p) => p.cache?.definitions),
      DEFAULT_DEFINITIONS_TTL_MS,
    );
    this.resourceListCache = resolveHint(
      options.packs.filter((p) => p.resources.length > 0 || p.resourceTemplates.length > 0).map((p) => p.cache?.data),
      DEFAULT_DATA_TTL_MS,
    );
    const all = [...this.tools.values()].map((t) => t.listing);
    this.#listings = { all, readOnly: all.filter((t) => t.annotations?.readOnlyHint === true) };
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

  listTools(view: RequestView): ToolListing[] {
    return view.readOnly ? this.#listings.readOnly : this.#listings.all;
  }

  /**
   * tools/call. Unknown tools are a protocol error (C12); everything else is a result: invalid
   * arguments (C6), calls the view forbids (C14), and whatever the handler does.
   */
  async callTool(
    name: string,
    args: unknown,
    view: RequestView,
    base: Omit<ToolContext, "signal" | "toolName">,
    signal?: CancelSignal,
  ): Promise<CallToolResult> {
    const tool = this.tools.get(name);
    if (!tool) {
      const closest = closestMatches(
        name,
        this.listTools(view).map((t) => t.name),
        3,
      );
      const hint = closest.length > 0 ? `. Closest tools: ${closest.join(", ")}` : "; this server has no tools";
      throw new JsonRpcError(JsonRpcCode.InvalidParams, `Unknown tool: ${name}${hint}`);
    }
    const started = performance.now();
    let result: CallToolResult;
    if (view.readOnly && tool.annotations.readOnlyHint !== true) {
      const allowed = this.listTools(view).map((t) => t.name);
      const why = this.#options.readOnly ? "this server is read-only" : "your credentials allow read-only tools only";
      result = toolErrorResult(
        name,
        new PermissionDeniedError(
          `${why}; ${name} changes data. Read-only tools: ${allowed.length > 0 ? allowed.join(", ") : "none"}`,
        ),
      );
    } else {
      const parsed = tool.parseArguments(args);
      result = parsed.success
        ? await runTool(tool, parsed.data, base, signal, {
            timeoutMs: this.#options.timeoutMs ?? 30_000,
            textFormat: this.#textFormat,
            logger: base.logger,
          })
        : invalidArgumentsResult(name, parsed.issues);
    }
    // The request's logger: a transport may add its request id to every line.
    const logger = base.logger;
    if (logger.isLevelEnabled?.("info") === false) return result;
    const meta = result._meta?.[ERROR_META_KEY] as { code?: string; ref?: string } | undefined;
    logger.info(
      {
        tool: name,
        outcome: signal instanceof InputRound && signal.needsInput ? "input_required" : outcomeOf(result),
        code: meta?.code,
        ref: meta?.ref,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
        requestId: base.requestId,
      },
      "tool call",
    );
    return result;
  }

  async listResources(ctx: RequestContext): Promise<Resource[]> {
    const out: Resource[] = [];
    for (const r of this.resources.values()) out.push(describeResource(r));
    for (const t of this.templates.values()) out.push(...(await this.listTemplateResources(t, ctx)));
    return out;
  }

  listResourceTemplates(): ResourceTemplate[] {
    return [...this.templates.values()].map((t) => {
      const out: ResourceTemplate = { uriTemplate: t.uriTemplate, name: t.name, description: t.description };
      if (t.title !== undefined) out.title = t.title;
      if (t.mimeType !== undefined) out.mimeType = t.mimeType;
      return out;
    });
  }

  /** The cache hint of resources/read for a URI: its definition's, else its pack's data hint. */
  resourceCache(uri: string): CacheFields {
    const fixed = this.resources.get(uri);
    const definition = fixed ?? [...this.templates.values()].find((t) => t.match(uri) !== undefined);
    if (!definition) return { ttlMs: DEFAULT_DATA_TTL_MS, scope: undefined };
    // The definition's own hint wins over its pack's, field by field.
    const pack = this.#packOf.get(definition)?.cache?.data;
    return {
      ttlMs: definition.cache?.ttlMs ?? pack?.ttlMs ?? DEFAULT_DATA_TTL_MS,
      scope: definition.cache?.scope ?? pack?.scope,
    };
  }

  /** True when a URI is a fixed resource or matches a template's form. */
  knowsResource(uri: string): boolean {
    if (this.resources.has(uri)) return true;
    for (const t of this.templates.values()) if (t.match(uri)) return true;
    return false;
  }

  async readResource(uri: string, ctx: RequestContext): Promise<ReadResourceResult> {
    const fixed = this.resources.get(uri);
    if (fixed) {
      const body = await this.#guard(`read ${uri}`, () => fixed.read(ctx));
      return { contents: toContents(uri, body, fixed.mimeType) };
    }
    for (const t of this.templates.values()) {
      const vars = t.match(uri);
      if (!vars) continue;
      const parsed = t.parseParams(vars);
      if (!parsed.success) {
        throw new JsonRpcError(JsonRpcCode.InvalidParams, `Invalid resource URI ${uri}:\n${issuesText(parsed.issues)}`);
      }
      const body = await this.#guard(`read ${uri}`, () => t.read(parsed.data, { ...ctx, uri }));
      return { contents: toContents(uri, body, t.mimeType) };
    }
    const forms = [...this.resources.keys(), ...[...this.templates.values()].map((t) => t.uriTemplate)];
    throw new JsonRpcError(
      JsonRpcCode.ResourceNotFound,
      `Resource not found: ${uri}. Known resources: ${forms.length > 0 ? forms.join(", ") : "none"}`,
      { uri },
    );
  }

  listPrompts() {
    return [...this.prompts.values()].map((p) => {
      const out: { name: string; title?: string; description: string; arguments: unknown[] } = {
        name: p.name,
        description: p.description,
        arguments: [...p.arguments],
      };
      if (p.title !== undefined) out.title = p.title;
      return out;
    });
  }

  async getPrompt(name: string, args: unknown, ctx: RequestContext): Promise<GetPromptResult> {
    const prompt = this.prompts.get(name);
    if (!prompt) {
      const known = [...this.prompts.keys()];
      throw new JsonRpcError(
        JsonRpcCode.InvalidParams,
        `Unknown prompt: ${name}. Known prompts: ${known.length > 0 ? known.join(", ") : "none"}`,
      );
    }
    const parsed = prompt.parseArgs(args);
    if (!parsed.success) {
      throw new JsonRpcError(
        JsonRpcCode.InvalidParams,
        `Invalid arguments for prompt ${name}:\n${issuesText(parsed.issues)}`,
      );
    }
    const body = await this.#guard(`prompt ${name}`, () => prompt.render(parsed.data, ctx));
    return toPromptResult(prompt, body);
  }

  /** Every value a completer suggests, uncapped; unknown references are -32602. */
  async completionValues(
    ref: { type: string; name?: string; uri?: string },
    argument: { name: string; value: string },
    context: Record<string, string>,
    ctx: RequestContext,
  ): Promise<string[]> {
    let completers: Record<string, Completer | undefined> | undefined;
    if (ref.type === "ref/prompt") {
      const prompt = this.prompts.get(ref.name ?? "");
      if (!prompt) throw new JsonRpcError(JsonRpcCode.InvalidParams, `Unknown prompt: ${ref.name}`);
      completers = prompt.complete;
    } else if (ref.type === "ref/resource") {
      const template = [...this.templates.values()].find((t) => t.uriTemplate === ref.uri);
      if (!template) {
        if (this.resources.has(ref.uri ?? "")) return [];
        throw new JsonRpcError(JsonRpcCode.InvalidParams, `Unknown resource template: ${ref.uri}`);
      }
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
      if (isToolError(error)) {
        const code =
          error.code === "not_found"
            ? JsonRpcCode.ResourceNotFound
            : error.code === "invalid_arguments"
              ? JsonRpcCode.InvalidParams
              : JsonRpcCode.InternalError;
        throw new JsonRpcError(code, error.message, {
          [ERROR_META_KEY]: toolErrorResult(what, error)._meta[ERROR_META_KEY],
        });
      }
      const { ref } = maskInternalError(error, what, { logger: this.logger });
      throw new JsonRpcError(JsonRpcCode.InternalError, `Internal error (ref ${ref})`);
    }
  }

  async close(): Promise<void> {
    for (const pack of this.#options.packs) await pack.close?.();
  }
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
