import type { CacheHint, Pack } from "@toolshed/schema";
import type { Registry } from "./registry.js";

// The 2026-07-28 cache hints of list and read results (ttlMs, scope), from what packs declare.

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

export function resolveHint(hints: readonly (CacheHint | undefined)[], ttlMs: number): CacheFields {
  // The shortest life and the strictest scope of the parts a result is made of.
  let ttl: number | undefined;
  let scope: CacheFields["scope"];
  for (const hint of hints) {
    if (hint?.ttlMs !== undefined) ttl = ttl === undefined ? hint.ttlMs : Math.min(ttl, hint.ttlMs);
    if (hint?.scope === "private" || (hint?.scope === "public" && scope === undefined)) scope = hint.scope;
  }
  return { ttlMs: ttl ?? ttlMs, scope };
}

/** Cache hints of tools/list, prompts/list and resources/templates/list. */
export function definitionsCache(packs: readonly Pack[]): CacheFields {
  return resolveHint(
    packs.map((p) => p.cache?.definitions),
    DEFAULT_DEFINITIONS_TTL_MS,
  );
}

/** Cache hint of resources/list: the data hints of the packs that have resources. */
export function resourceListCache(packs: readonly Pack[]): CacheFields {
  return resolveHint(
    packs.filter((p) => p.resources.length > 0 || p.resourceTemplates.length > 0).map((p) => p.cache?.data),
    DEFAULT_DATA_TTL_MS,
  );
}

/** The cache hint of resources/read for a URI: its definition's, else its pack's data hint. */
export function resourceCache(registry: Registry, uri: string): CacheFields {
  const fixed = registry.resources.get(uri);
  const definition = fixed ?? [...registry.templates.values()].find((t) => t.match(uri) !== undefined);
  if (!definition) return { ttlMs: DEFAULT_DATA_TTL_MS, scope: undefined };
  // The definition's own hint wins over its pack's, field by field.
  const pack = registry.targets.get(definition)?.pack.cache?.data;
  return {
    ttlMs: definition.cache?.ttlMs ?? pack?.ttlMs ?? DEFAULT_DATA_TTL_MS,
    scope: definition.cache?.scope ?? pack?.scope,
  };
}
