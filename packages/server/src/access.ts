import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { PermissionDeniedError, toolErrorResult } from "@toolshed/errors";
import type {
  AnyPrompt,
  AnyResourceTemplate,
  AnyTool,
  AuthInfo,
  Pack,
  RequiredScopes,
  ResourceDefinition,
} from "@toolshed/schema";
import { JsonRpcCode, JsonRpcError } from "./jsonrpc-error.js";

// Per-definition authorization: which caller may see and use which tool, resource, template and prompt.

/** One definition as `canAccess` sees it, with its pack and every scope it needs. */
export interface AccessTargetOf<K extends string, D> {
  readonly kind: K;
  /** The definition's name (a resource's and a template's `name`, not its URI). */
  readonly name: string;
  readonly definition: D;
  readonly pack: Pack;
  /** The pack's scopes and the definition's own, without duplicates. */
  readonly requiredScopes: RequiredScopes;
}

export type AccessTarget =
  | AccessTargetOf<"tool", AnyTool>
  | AccessTargetOf<"resource", ResourceDefinition>
  | AccessTargetOf<"resourceTemplate", AnyResourceTemplate>
  | AccessTargetOf<"prompt", AnyPrompt>;

export type AccessKind = AccessTarget["kind"];

/**
 * A rule scopes cannot express: false hides the definition from this caller (lists leave it out,
 * calls are answered as if it did not exist). A throw counts as false and is logged.
 */
export type CanAccess = (auth: AuthInfo | undefined, target: AccessTarget) => boolean;

/** A visible definition whose scopes the caller's token lacks (HTTP: 403 insufficient_scope). */
export interface ScopeDenied {
  ok: false;
  hidden: false;
  /** Every scope the definition needs (its pack's and its own). */
  requiredScopes: string[];
  /** The ones this token does not hold. */
  missingScopes: string[];
}

/** What a caller may do with one definition. Unknown names are `{ok: true}`: the usual not-found answer follows. */
export type Access = { ok: true } | { ok: false; hidden: true } | ScopeDenied;

/** `Access` of one request; a scope denial also says what was asked (`tools/call delete_note`), for the message. */
export type RequestAccess = { ok: true } | { ok: false; hidden: true } | (ScopeDenied & { action: string });

export const ACCESS_OK: { ok: true } = Object.freeze({ ok: true as const });
export const ACCESS_HIDDEN: { ok: false; hidden: true } = Object.freeze({ ok: false as const, hidden: true as const });

/** The scopes a definition needs: its pack's, then its own, each once. */
export function scopesOf(pack: Pack, definition: { requiredScopes?: RequiredScopes }): RequiredScopes {
  // `?? []`: a definition made by an older @toolshed/schema has no requiredScopes.
  const own = definition.requiredScopes ?? [];
  const packs = pack.requiredScopes ?? [];
  if (own.length === 0) return packs;
  if (packs.length === 0) return own;
  return Object.freeze([...new Set([...packs, ...own])]);
}

/** The scopes of `required` that `authInfo` does not hold. */
export function missingScopes(required: RequiredScopes, authInfo: AuthInfo): string[] {
  const held = Array.isArray(authInfo.scopes) ? authInfo.scopes : [];
  return required.filter((scope) => !held.includes(scope));
}

/**
 * The JSON-RPC error for a call the caller may see but whose scopes its token lacks:
 * -32003 with `data: {requiredScopes, missingScopes}`. `action` names the call, e.g. `tools/call delete_note`.
 */
export function insufficientScopeError(
  action: string,
  denied: { requiredScopes: readonly string[]; missingScopes: readonly string[] },
  authInfo: AuthInfo | undefined,
): JsonRpcError {
  const missing = denied.missingScopes.join(" ");
  const held = authInfo?.scopes ?? [];
  const has = held.length > 0 ? `this token has ${held.join(" ")}` : "this token has no scopes";
  const noun = denied.missingScopes.length === 1 ? "scope" : "scopes";
  return new JsonRpcError(
    JsonRpcCode.InsufficientScope,
    `Forbidden: ${action} needs the ${noun} ${missing} (${has}); ask the authorization server for a token with ${missing}`,
    { requiredScopes: [...denied.requiredScopes], missingScopes: [...denied.missingScopes] },
  );
}

/**
 * The tool error for a call whose token lacks one of the tool's scopes, or undefined when it may
 * go on (no credentials: nothing to check). For attachPack on both SDK lines.
 */
export function scopeDeniedResult(
  runtime: { access(auth: AuthInfo | undefined, kind: AccessKind, nameOrUri: string): Access },
  tool: AnyTool,
  authInfo: AuthInfo | undefined,
): CallToolResult | undefined {
  if (authInfo === undefined) return undefined;
  const access = runtime.access(authInfo, "tool", tool.name);
  if (access.ok || access.hidden) return undefined;
  const error = insufficientScopeError(`tools/call ${tool.name}`, access, authInfo);
  return toolErrorResult(tool.name, new PermissionDeniedError(error.message));
}
