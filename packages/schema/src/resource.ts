import { UriTemplate } from "@modelcontextprotocol/sdk/shared/uriTemplate.js";
import type { ParseResult } from "./arguments.js";
import { type CacheHint, checkCacheHint } from "./cache.js";
import { checkName, checkText } from "./checks.js";
import type { RequestContext } from "./context.js";
import { DefinitionError } from "./definition-error.js";
import { checkListingExtras, type ListingExtras } from "./listing-extras.js";
import {
  compileObjectInput,
  type InputValues,
  type ObjectInput,
  parseStringValues,
  type SchemaKind,
} from "./object-input.js";
import { checkRequiredScopes, type RequiredScopes } from "./scopes.js";

type MaybePromise<T> = T | Promise<T>;

/** One item of a resource's contents: text, or base64 `blob`. */
export type ResourceContent = { uri?: string; mimeType?: string } & ({ text: string } | { blob: string });

/** What a read handler returns: text, one content item, or several. */
export type ResourceBody = string | ResourceContent | ResourceContent[];

/** Given to completion handlers: the other arguments the client has filled in so far. */
export interface CompletionContext extends RequestContext {
  arguments: Record<string, string>;
}

/** Suggests values for one argument or template variable from what was typed so far. */
export type Completer = (value: string, ctx: CompletionContext) => MaybePromise<readonly string[]>;

export interface ResourceConfig extends ListingExtras {
  uri: string;
  name: string;
  title?: string;
  description: string;
  mimeType?: string;
  /** How long clients may reuse what `read` returns (2026-07-28 cache hints); the pack's hint otherwise. */
  cache?: CacheHint;
  /** OAuth scopes a caller's token must all hold to see and read this resource; its pack's apply too. */
  requiredScopes?: RequiredScopes;
  read: (ctx: RequestContext) => MaybePromise<ResourceBody>;
}

export interface ResourceDefinition extends Readonly<Omit<ResourceConfig, "requiredScopes">> {
  readonly kind: "resource";
  /** Scopes a token needs for this resource (its pack's apply too); [] when none. */
  readonly requiredScopes: RequiredScopes;
}

/** A fixed resource at one URI. */
export function defineResource(config: ResourceConfig): ResourceDefinition {
  const label = `Resource "${config.name}"`;
  checkName(label, config.name);
  checkText(label, "description", config.description);
  checkCacheHint(label, config.cache);
  const requiredScopes = checkRequiredScopes(label, config.requiredScopes);
  try {
    new URL(config.uri);
  } catch {
    throw new DefinitionError(
      label,
      "C13",
      `uri must be an absolute URI such as note://index, got ${JSON.stringify(config.uri)}`,
    );
  }
  const extras = checkListingExtras(label, config);
  return Object.freeze({ ...config, ...extras, kind: "resource" as const, requiredScopes });
}

/** One concrete resource a template lists in resources/list. */
export interface ListedResource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

export interface ResourceTemplateConfig<P extends ObjectInput> extends ListingExtras {
  /** RFC 6570 template such as `note://{title}`; every variable is a key of `params`. */
  uriTemplate: string;
  name: string;
  title?: string;
  description: string;
  mimeType?: string;
  /**
   * Validates the variables taken from a URI (strings, or string arrays for exploded ones); failures
   * are hints (C6) in a JSON-RPC error. A Zod object, a JSON Schema document or a Standard Schema.
   */
  params: P;
  /** Completion for template variables. */
  complete?: { [K in keyof InputValues<P>]?: Completer };
  /** How long clients may reuse what `read` returns (2026-07-28 cache hints); the pack's hint otherwise. */
  cache?: CacheHint;
  /**
   * OAuth scopes a caller's token must all hold to see, list and read this template's resources;
   * its pack's apply too.
   */
  requiredScopes?: RequiredScopes;
  /** Lists concrete resources for resources/list; keep it bounded. */
  list?: (ctx: RequestContext) => MaybePromise<readonly ListedResource[]>;
  read: (params: InputValues<P>, ctx: RequestContext & { uri: string }) => MaybePromise<ResourceBody>;
}

export interface ResourceTemplateDefinition<P extends ObjectInput = ObjectInput>
  extends Readonly<Omit<ResourceTemplateConfig<P>, "requiredScopes">> {
  readonly kind: "resourceTemplate";
  /** How `params` is written: Zod, a JSON Schema document or a Standard Schema. */
  readonly schemaKind: SchemaKind;
  /** Scopes a token needs for this template (its pack's apply too); [] when none. */
  readonly requiredScopes: RequiredScopes;
  readonly variables: readonly string[];
  /** Variables from a URI, or undefined when the URI is not of this template. */
  match(uri: string): Record<string, string | string[]> | undefined;
  parseParams(variables: Record<string, string | string[]>): ParseResult<InputValues<P>>;
}

/** A family of resources addressed by a URI template whose variables its params schema validates. */
export function defineResourceTemplate<P extends ObjectInput>(
  config: ResourceTemplateConfig<P>,
): ResourceTemplateDefinition<P> {
  const label = `Resource template "${config.name}"`;
  checkName(label, config.name);
  checkText(label, "description", config.description);
  checkCacheHint(label, config.cache);
  const requiredScopes = checkRequiredScopes(label, config.requiredScopes);
  let template: UriTemplate;
  try {
    template = new UriTemplate(config.uriTemplate);
  } catch (error) {
    throw new DefinitionError(
      label,
      "C13",
      `uriTemplate is not a valid RFC 6570 template: ${(error as Error).message}`,
    );
  }
  const variables = template.variableNames;
  const input = compileObjectInput(label, "params", "title", config.params);
  const keys = Object.keys((input.published.properties ?? {}) as Record<string, unknown>);
  const missing = variables.filter((v) => !keys.includes(v));
  const extra = keys.filter((k) => !variables.includes(k));
  if (variables.length === 0 || missing.length > 0 || extra.length > 0) {
    throw new DefinitionError(
      label,
      "C13",
      `params keys (${keys.join(", ") || "none"}) must be exactly the template variables (${variables.join(", ") || "none"})`,
    );
  }
  for (const key of Object.keys(config.complete ?? {})) {
    if (!variables.includes(key))
      throw new DefinitionError(label, "C13", `complete names "${key}", which is not a template variable`);
  }
  const extras = checkListingExtras(label, config);
  return Object.freeze({
    ...config,
    ...extras,
    kind: "resourceTemplate" as const,
    schemaKind: input.kind,
    requiredScopes,
    variables,
    match(uri: string) {
      return template.match(uri) ?? undefined;
    },
    parseParams(vars: Record<string, string | string[]>) {
      return parseStringValues(input, vars) as ParseResult<InputValues<P>>;
    },
  });
}
