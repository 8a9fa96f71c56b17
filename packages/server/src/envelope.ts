import { type ClientCapabilities, type LoggingLevel, LoggingLevelSchema } from "@modelcontextprotocol/sdk/types.js";
import { brandErrorClass } from "@toolshed/errors/internal";
import { type Meta, MetaKey, MODERN_PROTOCOL_VERSIONS } from "./era.js";
import { JsonRpcCode, JsonRpcError } from "./jsonrpc-error.js";

/** What a 2026-07-28 request says about itself in `params._meta`. */
export interface Envelope {
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo?: { name: string; version: string };
  /** Log notifications for this request at or above this level; none when absent. */
  logLevel?: LoggingLevel;
}

/**
 * -32602 for a 2026-07-28 request whose envelope (`params._meta`) is missing or malformed; unlike
 * other bad params it goes out over HTTP with 400, as the revision asks.
 */
export class EnvelopeError extends JsonRpcError {
  constructor(message: string) {
    super(JsonRpcCode.InvalidParams, message);
    this.name = "EnvelopeError";
  }
}
brandErrorClass(EnvelopeError, "EnvelopeError");

const badParams = (message: string) => new EnvelopeError(message);

/**
 * Reads and checks a modern request's envelope (its `params._meta`, see metaOf): a missing field is -32602, a revision this server
 * does not speak is -32022 with the supported list (both HTTP 400, see core/http-status.ts).
 */
export function readEnvelope(method: string, meta: Meta | undefined): Envelope {
  if (meta === undefined) {
    throw badParams(
      `Invalid params for ${method}: params._meta must carry "${MetaKey.protocolVersion}" (such as "${MODERN_PROTOCOL_VERSIONS[0]}") and "${MetaKey.clientCapabilities}"`,
    );
  }
  const m = meta;
  const version = m[MetaKey.protocolVersion];
  if (typeof version !== "string" || version === "") {
    throw badParams(
      `Invalid params for ${method}: params._meta["${MetaKey.protocolVersion}"] must be a protocol version such as "${MODERN_PROTOCOL_VERSIONS[0]}"`,
    );
  }
  if (!MODERN_PROTOCOL_VERSIONS.includes(version)) {
    throw new JsonRpcError(
      JsonRpcCode.UnsupportedProtocolVersion,
      `Unsupported protocol version: ${version}; this server speaks ${MODERN_PROTOCOL_VERSIONS.join(", ")} in _meta, and the 2025 revisions through initialize`,
      { supported: [...MODERN_PROTOCOL_VERSIONS], requested: version },
    );
  }
  const capabilities = m[MetaKey.clientCapabilities];
  if (typeof capabilities !== "object" || capabilities === null || Array.isArray(capabilities)) {
    throw badParams(
      `Invalid params for ${method}: params._meta["${MetaKey.clientCapabilities}"] must be an object ({} when the client has none)`,
    );
  }
  const envelope: Envelope = { protocolVersion: version, clientCapabilities: capabilities as ClientCapabilities };
  const info = m[MetaKey.clientInfo];
  if (typeof info === "object" && info !== null) envelope.clientInfo = info as Envelope["clientInfo"] & object;
  const level = m[MetaKey.logLevel];
  if (level !== undefined) {
    const parsed = LoggingLevelSchema.safeParse(level);
    if (!parsed.success) {
      throw badParams(
        `Invalid params for ${method}: params._meta["${MetaKey.logLevel}"] must be one of ${LoggingLevelSchema.options.join(", ")}`,
      );
    }
    envelope.logLevel = parsed.data;
  }
  return envelope;
}

/** -32021 for a request whose handler needs a client capability the request did not declare. */
export function missingCapability(capability: "elicitation" | "sampling" | "roots", what: string): JsonRpcError {
  return new JsonRpcError(
    JsonRpcCode.MissingRequiredClientCapability,
    `Missing required client capability: ${capability} (the server needs it to ${what}); declare it in _meta["${MetaKey.clientCapabilities}"]`,
    { requiredCapabilities: { [capability]: {} } },
  );
}
