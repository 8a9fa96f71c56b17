import { DefinitionError } from "./definition-error.js";

/**
 * How long a client or a gateway may reuse a list or read result (MCP 2026-07-28 `ttlMs` and
 * `cacheScope`). `private` keeps a cached answer to the caller it was given to; `public` lets
 * a shared cache hand it to anyone.
 */
export interface CacheHint {
  /** Milliseconds the result stays fresh; 0 means always ask again. */
  ttlMs?: number;
  scope?: "public" | "private";
}

/** Checks a cache hint when its definition is made (C13), so a bad value fails at start-up. */
export function checkCacheHint(label: string, hint: CacheHint | undefined): void {
  if (hint === undefined) return;
  if (typeof hint !== "object" || hint === null) {
    throw new DefinitionError(label, "C13", "cache must be an object such as { ttlMs: 60000, scope: 'public' }");
  }
  if (hint.ttlMs !== undefined && !(Number.isSafeInteger(hint.ttlMs) && hint.ttlMs >= 0)) {
    throw new DefinitionError(
      label,
      "C13",
      `cache.ttlMs must be a whole number of milliseconds, 0 or more (got ${String(hint.ttlMs)})`,
    );
  }
  if (hint.scope !== undefined && hint.scope !== "public" && hint.scope !== "private") {
    throw new DefinitionError(label, "C13", `cache.scope must be "public" or "private" (got ${String(hint.scope)})`);
  }
}
