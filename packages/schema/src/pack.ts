import { type CacheHint, checkCacheHint } from "./cache.js";
import { checkName } from "./checks.js";
import { DefinitionError } from "./definition-error.js";
import type { PromptDefinition } from "./prompt.js";
import type { ResourceDefinition, ResourceTemplateDefinition } from "./resource.js";
import { checkRequiredScopes, type RequiredScopes } from "./scopes.js";
import type { ToolDefinition } from "./tool.js";

// Definitions are stored type-erased: a pack holds tools of many input and output types.
// biome-ignore lint/suspicious/noExplicitAny: erased generic parameters
export type AnyTool = ToolDefinition<any, any>;
// biome-ignore lint/suspicious/noExplicitAny: erased generic parameters
export type AnyResourceTemplate = ResourceTemplateDefinition<any>;
// biome-ignore lint/suspicious/noExplicitAny: erased generic parameters
export type AnyPrompt = PromptDefinition<any>;

export interface PackConfig {
  name: string;
  tools?: readonly AnyTool[];
  resources?: readonly (ResourceDefinition | AnyResourceTemplate)[];
  prompts?: readonly AnyPrompt[];
  /**
   * Default cache hint for the pack's list and read results (2026-07-28): tools, prompts and
   * templates are lists of definitions; resources and their contents are data.
   */
  cache?: PackCacheHints;
  /**
   * OAuth scopes a caller's token must all hold to see and use anything in the pack, on top of
   * each definition's own.
   */
  requiredScopes?: RequiredScopes;
}

/** A pack's cache defaults: one for its lists of definitions, one for its data. */
export interface PackCacheHints {
  /** tools/list, prompts/list, resources/templates/list (default 5 minutes, public). */
  definitions?: CacheHint;
  /** resources/list and resources/read (default 0 ms: always fresh). */
  data?: CacheHint;
}

export interface Pack {
  readonly kind: "pack";
  readonly name: string;
  readonly tools: readonly AnyTool[];
  readonly resources: readonly ResourceDefinition[];
  readonly resourceTemplates: readonly AnyResourceTemplate[];
  readonly prompts: readonly AnyPrompt[];
  readonly cache?: PackCacheHints;
  /** Scopes a token needs for everything in the pack; [] when none. */
  readonly requiredScopes: RequiredScopes;
  /** Called when the server that mounts the pack closes (stores, timers). */
  readonly close?: () => Promise<void> | void;
}

/** Checks that names are unique (C13) across a set of packs; throws naming both owners. */
export function checkUniqueNames(packs: readonly Pack[]): void {
  const seen = new Map<string, string>();
  const claim = (kind: string, name: string, owner: string) => {
    const key = `${kind}:${name}`;
    const first = seen.get(key);
    if (first !== undefined) {
      throw new DefinitionError(
        `${kind} "${name}"`,
        "C13",
        `name is defined twice (in pack "${first}" and pack "${owner}"); names must be unique in a server`,
      );
    }
    seen.set(key, owner);
  };
  for (const pack of packs) {
    for (const t of pack.tools) claim("Tool", t.name, pack.name);
    for (const r of pack.resources) claim("Resource", r.uri, pack.name);
    for (const r of pack.resourceTemplates) claim("Resource template", r.uriTemplate, pack.name);
    for (const p of pack.prompts) claim("Prompt", p.name, pack.name);
  }
}

/** Groups tools, resources and prompts under one name, as a unit to mount on a server. */
export function definePack(config: PackConfig & { close?: () => Promise<void> | void }): Pack {
  checkName(`Pack "${config.name}"`, config.name);
  checkCacheHint(`Pack "${config.name}" (cache.definitions)`, config.cache?.definitions);
  checkCacheHint(`Pack "${config.name}" (cache.data)`, config.cache?.data);
  const requiredScopes = checkRequiredScopes(`Pack "${config.name}"`, config.requiredScopes);
  const resources: ResourceDefinition[] = [];
  const resourceTemplates: AnyResourceTemplate[] = [];
  for (const r of config.resources ?? []) {
    if (r.kind === "resource") resources.push(r);
    else if (r.kind === "resourceTemplate") resourceTemplates.push(r);
    else
      throw new DefinitionError(
        `Pack "${config.name}"`,
        "C13",
        "resources must come from defineResource or defineResourceTemplate",
      );
  }
  for (const t of config.tools ?? []) {
    if (t?.kind !== "tool")
      throw new DefinitionError(`Pack "${config.name}"`, "C13", "tools must come from defineTool");
  }
  for (const p of config.prompts ?? []) {
    if (p?.kind !== "prompt")
      throw new DefinitionError(`Pack "${config.name}"`, "C13", "prompts must come from definePrompt");
  }
  const pack: Pack = Object.freeze({
    kind: "pack" as const,
    name: config.name,
    tools: [...(config.tools ?? [])],
    resources,
    resourceTemplates,
    prompts: [...(config.prompts ?? [])],
    ...(config.cache === undefined ? {} : { cache: config.cache }),
    requiredScopes,
    close: config.close,
  });
  checkUniqueNames([pack]);
  return pack;
}
