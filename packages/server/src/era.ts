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

/** A request's `params._meta`, when it is an object. */
export type Meta = Record<string, unknown>;

/** `params._meta` when it is an object (not an array); undefined otherwise. */
export function metaOf(params: unknown): Meta | undefined {
  if (typeof params !== "object" || params === null) return undefined;
  const meta = (params as { _meta?: unknown })._meta;
  return typeof meta === "object" && meta !== null && !Array.isArray(meta) ? (meta as Meta) : undefined;
}

/** The protocol version a request's `_meta` names, if it names one (any string, supported or not). */
export function metaVersionOf(params: unknown): unknown {
  return metaOf(params)?.[MetaKey.protocolVersion];
}

/** Whether a request is answered by the modern era's rules, from its `_meta` as already read. */
export function isModernMeta(method: string, meta: Meta | undefined): boolean {
  return meta?.[MetaKey.protocolVersion] !== undefined || MODERN_ONLY_METHODS.has(method);
}

/** Whether a request is answered by the modern era's rules. */
export function isModernRequest(method: string, params: unknown): boolean {
  return isModernMeta(method, metaOf(params));
}
