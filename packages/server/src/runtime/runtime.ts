import type {
  CallToolResult,
  CompleteResult,
  GetPromptResult,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
} from "@modelcontextprotocol/sdk/types.js";
import type {
  AnyPrompt,
  AnyResourceTemplate,
  AnyTool,
  AuthInfo,
  Logger,
  RequestContext,
  ResourceDefinition,
  ToolListing,
} from "@toolshed/schema";
import type { Access, AccessKind } from "../access.js";
import type { MiddlewareFrame, MiddlewareStack } from "../middleware.js";
import { AccessControl } from "./access-control.js";
import { type CacheFields, definitionsCache, resourceCache, resourceListCache } from "./cache-hints.js";
import { type CompletionCall, complete, completionValues } from "./completion.js";
import type { RequestView, RuntimeOptions, RuntimeParts } from "./parts.js";
import { getPrompt, listPrompts, type PromptCall } from "./prompts.js";
import { type PromptListing, Registry } from "./registry.js";
import { listResources, listResourceTemplates, listTemplateResources, readResource } from "./resources.js";
import { callTool, listTools, refuseToolCall, type ToolCall } from "./tools.js";

/** Credentials with `tools:read` but not `tools:write` are read-only. */
export function defaultIsReadOnlyRequest(authInfo: AuthInfo | undefined): boolean {
  if (!authInfo) return false;
  return authInfo.scopes.includes("tools:read") && !authInfo.scopes.includes("tools:write");
}

const READ_ONLY_VIEW: RequestView = Object.freeze({ readOnly: true });
const FULL_VIEW: RequestView = Object.freeze({ readOnly: false });

/**
 * Transport-independent core: every MCP operation on the mounted packs, keeping CONTRACT.md.
 * Built once per server and shared by all connections. A facade: the registry, access control
 * and one module per kind of operation (tools, resources, prompts, completion) do the work.
 */
export class Runtime {
  readonly tools: Map<string, AnyTool>;
  readonly resources: Map<string, ResourceDefinition>;
  readonly templates: Map<string, AnyResourceTemplate>;
  readonly prompts: Map<string, AnyPrompt>;
  readonly logger: Logger;
  /** The server's middleware, if it was given a stack (createServer always gives one). */
  readonly middleware: MiddlewareStack | undefined;
  /**
   * True when some definition needs a scope or `canAccess` is set: lists and calls are then
   * checked per caller. False keeps the precomputed lists and calls without a check.
   */
  readonly filtersByCaller: boolean;
  /**
   * True when a caller's lists depend on who it is: filtered by scope or `canAccess`, or by the
   * read-only view a token may give (C14) when that view lists fewer tools than the full one.
   */
  readonly listsByCaller: boolean;
  /** Cache hints of tools/list, prompts/list and resources/templates/list. */
  readonly definitionsCache: CacheFields;
  /** Cache hint of resources/list. */
  readonly resourceListCache: CacheFields;
  readonly #parts: RuntimeParts;

  constructor(options: RuntimeOptions) {
    const registry = new Registry(options.packs);
    const access = new AccessControl(registry, options.canAccess, options.logger);
    this.#parts = {
      options,
      registry,
      access,
      logger: options.logger,
      textFormat: options.textFormat ?? "pretty",
      middleware: options.middleware,
    };
    this.tools = registry.tools;
    this.resources = registry.resources;
    this.templates = registry.templates;
    this.prompts = registry.prompts;
    this.logger = options.logger;
    this.middleware = options.middleware;
    this.filtersByCaller = access.filtersByCaller;
    const views = registry.toolListings;
    this.listsByCaller =
      access.filtersByCaller || (options.readOnly !== true && views.readOnly.length !== views.all.length);
    this.definitionsCache = definitionsCache(options.packs);
    this.resourceListCache = resourceListCache(options.packs);
  }

  /**
   * The scopes this server's tokens may carry: `tools:read`, `tools:write` and every scope a
   * definition or pack names; sorted, each once (HTTP publishes them as `scopes_supported`).
   */
  scopesSupported(): string[] {
    return [...this.#parts.registry.scopesSupported];
  }

  /** What a caller may do with one definition (AccessControl.access). */
  access(auth: AuthInfo | undefined, kind: AccessKind, nameOrUri: string): Access {
    return this.#parts.access.access(auth, kind, nameOrUri);
  }

  /** The pack a tool belongs to, by the tool's name. */
  packOf(toolName: string): string | undefined {
    const tool = this.tools.get(toolName);
    return tool === undefined ? undefined : this.#parts.registry.targets.get(tool)?.pack.name;
  }

  /** Whether the caller may read some resource or template of the pack (so hear that its list changed). */
  seesResourcesOf(packName: string, auth: AuthInfo | undefined): boolean {
    return this.#parts.access.seesResourcesOf(packName, auth);
  }

  get hasResources(): boolean {
    return this.resources.size > 0 || this.templates.size > 0;
  }

  get hasPrompts(): boolean {
    return this.prompts.size > 0;
  }

  viewFor(authInfo: AuthInfo | undefined): RequestView {
    const options = this.#parts.options;
    const isReadOnly = options.isReadOnlyRequest ?? defaultIsReadOnlyRequest;
    return options.readOnly === true || isReadOnly(authInfo) ? READ_ONLY_VIEW : FULL_VIEW;
  }

  listTools(view: RequestView, authInfo?: AuthInfo): ToolListing[] {
    return listTools(this.#parts, view, authInfo);
  }

  callTool(...call: ToolCall): Promise<CallToolResult> {
    return callTool(this.#parts, ...call);
  }

  /** What tools/call would answer before the handler runs, or undefined when it would run (see refuseToolCall). */
  refuseToolCall(
    name: string,
    args: unknown,
    view: RequestView,
    authInfo: AuthInfo | undefined,
    checked?: Access,
  ): CallToolResult | undefined {
    return refuseToolCall(this.#parts, name, args, view, authInfo, checked);
  }

  listResources(ctx: RequestContext): Promise<Resource[]> {
    return listResources(this.#parts, ctx);
  }

  listResourceTemplates(authInfo?: AuthInfo): ResourceTemplate[] {
    return listResourceTemplates(this.#parts, authInfo);
  }

  listTemplateResources(template: AnyResourceTemplate, ctx: RequestContext): Promise<Resource[]> {
    return listTemplateResources(this.#parts, template, ctx);
  }

  resourceCache(uri: string): CacheFields {
    return resourceCache(this.#parts.registry, uri);
  }

  knowsResource(uri: string, authInfo?: AuthInfo): boolean {
    return this.#parts.access.knowsResource(uri, authInfo);
  }

  readResource(uri: string, ctx: RequestContext, frame?: MiddlewareFrame): Promise<ReadResourceResult> {
    return readResource(this.#parts, uri, ctx, frame);
  }

  listPrompts(authInfo?: AuthInfo): PromptListing[] {
    return listPrompts(this.#parts, authInfo);
  }

  getPrompt(...call: PromptCall): Promise<GetPromptResult> {
    return getPrompt(this.#parts, ...call);
  }

  completionValues(...call: CompletionCall): Promise<string[]> {
    return completionValues(this.#parts, ...call);
  }

  complete(...call: CompletionCall): Promise<CompleteResult> {
    return complete(this.#parts, ...call);
  }

  async close(): Promise<void> {
    for (const pack of this.#parts.options.packs) await pack.close?.();
  }
}
