import type { Resource, ResourceTemplate } from "@modelcontextprotocol/sdk/types.js";
import type {
  AnyPrompt,
  AnyResourceTemplate,
  AnyTool,
  ListingExtras,
  Pack,
  ResourceDefinition,
  ToolListing,
} from "@toolshed/schema";
import { checkUniqueNames } from "@toolshed/schema/internal";
import { type AccessKind, type AccessTarget, scopesOf } from "../access.js";

/** The scopes every Toolshed server understands (C14), published with those the definitions name. */
const BUILT_IN_SCOPES = ["tools:read", "tools:write"];

/** One entry of prompts/list. */
export interface PromptListing {
  name: string;
  title?: string;
  description: string;
  arguments: unknown[];
  icons?: unknown[];
  _meta?: Record<string, unknown>;
}

/**
 * Every definition of the mounted packs by name (resources by URI), each with its pack and scopes,
 * and the lists that do not depend on the caller, computed once.
 */
export class Registry {
  readonly tools = new Map<string, AnyTool>();
  readonly resources = new Map<string, ResourceDefinition>();
  readonly templates = new Map<string, AnyResourceTemplate>();
  readonly prompts = new Map<string, AnyPrompt>();
  /** Each definition as canAccess sees it, with its pack and scopes. */
  readonly targets = new Map<object, AccessTarget>();
  /** Sorted, each once: the built-in scopes and every scope a definition or pack names. */
  readonly scopesSupported: readonly string[];
  readonly toolListings: { all: ToolListing[]; readOnly: ToolListing[] };
  /** The tools behind toolListings, in the same order. */
  readonly listedTools: { all: AnyTool[]; readOnly: AnyTool[] };
  readonly promptListings: PromptListing[];
  readonly templateListings: ResourceTemplate[];

  constructor(packs: readonly Pack[]) {
    checkUniqueNames(packs);
    const target = (kind: AccessKind, definition: AccessTarget["definition"], pack: Pack) => {
      const requiredScopes = scopesOf(pack, definition);
      const entry = { kind, name: definition.name, definition, pack, requiredScopes };
      this.targets.set(definition, Object.freeze(entry) as AccessTarget);
    };
    for (const pack of packs) {
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
    for (const t of this.targets.values()) for (const scope of t.requiredScopes) named.add(scope);
    this.scopesSupported = Object.freeze([...named].sort());
    const tools = [...this.tools.values()];
    const readOnlyTools = tools.filter((t) => t.listing.annotations?.readOnlyHint === true);
    this.listedTools = { all: tools, readOnly: readOnlyTools };
    this.toolListings = { all: tools.map((t) => t.listing), readOnly: readOnlyTools.map((t) => t.listing) };
    this.promptListings = [...this.prompts.values()].map(describePrompt);
    this.templateListings = [...this.templates.values()].map(describeTemplate);
  }

  /** The name of the pack a definition belongs to ("" for one not registered here). */
  packOf(definition: object): string {
    return this.targets.get(definition)?.pack.name ?? "";
  }

  /** The template whose URI template is exactly `uriTemplate`. */
  templateByUri(uriTemplate: string): AnyResourceTemplate | undefined {
    for (const t of this.templates.values()) if (t.uriTemplate === uriTemplate) return t;
    return undefined;
  }
}

function describePrompt(p: AnyPrompt): PromptListing {
  const out: PromptListing = {
    name: p.name,
    description: p.description,
    arguments: [...p.arguments],
  };
  if (p.title !== undefined) out.title = p.title;
  return withExtras(out, p);
}

function describeTemplate(t: AnyResourceTemplate): ResourceTemplate {
  const out: ResourceTemplate = { uriTemplate: t.uriTemplate, name: t.name, description: t.description };
  if (t.title !== undefined) out.title = t.title;
  if (t.mimeType !== undefined) out.mimeType = t.mimeType;
  return withExtras(out, t);
}

/** One entry of resources/list for a fixed resource. */
export function describeResource(r: ResourceDefinition): Resource {
  const out: Resource = { uri: r.uri, name: r.name, description: r.description };
  if (r.title !== undefined) out.title = r.title;
  if (r.mimeType !== undefined) out.mimeType = r.mimeType;
  return withExtras(out, r);
}

/** A list entry with the definition's icons and `_meta`, when it has them. */
function withExtras<T extends object>(out: T, d: ListingExtras): T {
  const entry = out as T & ListingExtras;
  if (d.icons !== undefined) entry.icons = d.icons;
  if (d._meta !== undefined) entry._meta = d._meta;
  return entry;
}
