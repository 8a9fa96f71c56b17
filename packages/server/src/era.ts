import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";

// The two protocol eras. A request is modern when its _meta names a protocol version (or it is
// server/discover); a connection that sent `initialize` speaks a 2025 revision (legacy).

export type Era = "modern" | "legacy";

/** Revisions with per-request `_meta` and no `initialize` (newest first). */
export const MODERN_PROTOCOL_VERSIONS: readonly string[] = ["2026-07-28"];
export const LATEST_MODERN_VERSION = "2026-07-28";
/** Revisions negotiated with `initialize` (newest first). */
export const LEGACY_PROTOCOL_VERSIONS: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS.filter(
  (v) => !MODERN_PROTOCOL_VERSIONS.includes(v),
);

/** Reserved `_meta` keys of the 2026-07-28 revision. */
export const MetaKey = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
} as const;

/** Methods that exist only in the modern era. */
export const MODERN_ONLY_METHODS: ReadonlySet<string> = new Set(["server/discover", "subscriptions/listen"]);

/** The protocol version a request's `_meta` names, if it names one (any string, supported or not). */
export function metaVersionOf(params: unknown): unknown {
  if (typeof params !== "object" || params === null) return undefined;
  const meta = (params as { _meta?: unknown })._meta;
  if (typeof meta !== "object" || meta === null) return undefined;
  return (meta as Record<string, unknown>)[MetaKey.protocolVersion];
}

/** Whether a request is answered by the modern era's rules. */
export function isModernRequest(method: string, params: unknown): boolean {
  return metaVersionOf(params) !== undefined || MODERN_ONLY_METHODS.has(method);
}
