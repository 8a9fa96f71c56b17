import type { AnyResourceTemplate, AuthInfo, Logger, ResourceDefinition } from "@toolshed/schema";
import {
  ACCESS_HIDDEN,
  ACCESS_OK,
  type Access,
  type AccessKind,
  type AccessTarget,
  type CanAccess,
  missingScopes,
  type ScopeDenied,
} from "../access.js";
import type { Registry } from "./registry.js";

/** Marks a URI that only hidden definitions answer. */
export const HIDDEN = Symbol("hidden");

/** The definition that answers a URI, and what this caller may do with it. */
export type FoundResource =
  | { definition: ResourceDefinition; vars: undefined; access: { ok: true } | ScopeDenied }
  | { definition: AnyResourceTemplate; vars: Record<string, string | string[]>; access: { ok: true } | ScopeDenied };

/** Who may see and use which definition: `canAccess` and the scopes the definitions need. */
export class AccessControl {
  readonly #registry: Registry;
  readonly #canAccess: CanAccess | undefined;
  readonly #logger: Logger;
  /**
   * True when some definition needs a scope or `canAccess` is set: lists and calls are then
   * checked per caller. False keeps the precomputed lists and calls without a check.
   */
  readonly filtersByCaller: boolean;

  constructor(registry: Registry, canAccess: CanAccess | undefined, logger: Logger) {
    this.#registry = registry;
    this.#canAccess = canAccess;
    this.#logger = logger;
    this.filtersByCaller =
      canAccess !== undefined || [...registry.targets.values()].some((t) => t.requiredScopes.length > 0);
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
    const registry = this.#registry;
    let definition: object | undefined;
    if (kind === "tool") definition = registry.tools.get(nameOrUri);
    else if (kind === "prompt") definition = registry.prompts.get(nameOrUri);
    else if (kind === "resourceTemplate") {
      definition = registry.templates.get(nameOrUri) ?? registry.templateByUri(nameOrUri);
    } else {
      const found = this.findResource(nameOrUri, auth);
      return found === undefined ? ACCESS_OK : found === HIDDEN ? ACCESS_HIDDEN : found.access;
    }
    return definition === undefined ? ACCESS_OK : this.accessTo(auth, definition);
  }

  /** The access of one known definition (not checked when nothing is guarded). */
  accessTo(auth: AuthInfo | undefined, definition: object): Access {
    if (!this.filtersByCaller) return ACCESS_OK;
    const target = this.#registry.targets.get(definition);
    if (target === undefined) return ACCESS_OK;
    if (this.#canAccess !== undefined && !this.#allows(auth, target)) return ACCESS_HIDDEN;
    if (auth === undefined || target.requiredScopes.length === 0) return ACCESS_OK;
    const missing = missingScopes(target.requiredScopes, auth);
    if (missing.length === 0) return ACCESS_OK;
    return { ok: false, hidden: false, requiredScopes: [...target.requiredScopes], missingScopes: missing };
  }

  /** Whether this caller sees a definition in lists. */
  visible(auth: AuthInfo | undefined, definition: object): boolean {
    return this.accessTo(auth, definition).ok;
  }

  /** Whether the caller may read some resource or template of the pack (so hear that its list changed). */
  seesResourcesOf(packName: string, auth: AuthInfo | undefined): boolean {
    if (!this.filtersByCaller) return true;
    for (const target of this.#registry.targets.values()) {
      if (target.pack.name !== packName || (target.kind !== "resource" && target.kind !== "resourceTemplate")) continue;
      if (this.accessTo(auth, target.definition).ok) return true;
    }
    return false;
  }

  /**
   * The definition that answers a URI for this caller: the fixed resource, else the first template
   * that matches; hidden ones are passed over as if they did not exist. HIDDEN when only hidden ones match.
   */
  findResource(uri: string, auth: AuthInfo | undefined): FoundResource | typeof HIDDEN | undefined {
    let hidden = false;
    const fixed = this.#registry.resources.get(uri);
    if (fixed) {
      const access = this.accessTo(auth, fixed);
      if (access.ok || !access.hidden) return { definition: fixed, vars: undefined, access };
      hidden = true;
    }
    for (const t of this.#registry.templates.values()) {
      const vars = t.match(uri);
      if (!vars) continue;
      const access = this.accessTo(auth, t);
      if (access.ok || !access.hidden) return { definition: t, vars, access };
      hidden = true;
    }
    return hidden ? HIDDEN : undefined;
  }

  /**
   * True when a URI is a fixed resource or matches a template's form, and, given credentials, one
   * that caller may see (hidden ones are unknown to it).
   */
  knowsResource(uri: string, auth: AuthInfo | undefined): boolean {
    if (this.filtersByCaller) {
      const found = this.findResource(uri, auth);
      return found !== undefined && found !== HIDDEN;
    }
    if (this.#registry.resources.has(uri)) return true;
    for (const t of this.#registry.templates.values()) if (t.match(uri)) return true;
    return false;
  }

  #allows(auth: AuthInfo | undefined, target: AccessTarget): boolean {
    try {
      return (this.#canAccess as CanAccess)(auth, target) === true;
    } catch (error) {
      // Failing closed: a rule that cannot decide hides the definition, and the operator hears why.
      this.#logger.warn(
        { err: error, kind: target.kind, name: target.name, clientId: auth?.clientId },
        `canAccess threw for ${target.kind} ${target.name}; it is hidden from this caller. Return true or false instead of throwing`,
      );
      return false;
    }
  }
}
