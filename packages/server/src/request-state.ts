import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { JsonRpcCode, JsonRpcError } from "./jsonrpc-error.js";

/** What a multi round-trip request carries between rounds, bound to the call it belongs to. */
export interface StateBinding {
  /** The JSON-RPC method and the tool, prompt or resource it names. */
  method: string;
  target: string;
  /** The call's arguments, as the client sent them. */
  args: unknown;
  /** Who called: a state made for one caller is refused for another. */
  principal: string;
}

export interface RequestStateOptions {
  /**
   * HMAC key (at least 32 bytes of secret). Instances behind one load balancer must share it;
   * without one, a random key per process is used and retries must reach the same process.
   */
  secret?: string | Uint8Array;
  /** How long a state stays valid (default 10 minutes: a user may take a while to answer). */
  ttlMs?: number;
  /** Largest state accepted or issued, in bytes (default 64 KiB). */
  maxBytes?: number;
}

export const DEFAULT_STATE_TTL_MS = 10 * 60_000;
export const DEFAULT_STATE_MAX_BYTES = 64 * 1024;

interface Payload {
  v: 1;
  m: string;
  t: string;
  d: string;
  p: string;
  x: number;
  r: Record<string, unknown>;
}

/**
 * Who a state is bound to. The client id alone is shared by every user of one app (and may equal
 * another kind of credential's id), so a transport that knows the caller names it in
 * `authInfo.extra.principal` (an opaque key unique per caller; the HTTP server sets it); without
 * one, the client id. Nobody ("") for an unauthenticated request.
 */
export function principalOf(authInfo: { clientId: string; extra?: Record<string, unknown> } | undefined): string {
  if (!authInfo) return "";
  const principal = authInfo.extra?.principal;
  return typeof principal === "string" && principal !== "" ? `p:${principal}` : `c:${authInfo.clientId}`;
}

/** A stable digest of JSON-like data: keys in sorted order, so a re-serialized echo matches. */
export function digestOf(value: unknown): string {
  return createHash("sha256").update(stableJson(value)).digest("base64url");
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

const invalidState = (why: string) =>
  new JsonRpcError(
    JsonRpcCode.InvalidParams,
    `Invalid params: requestState ${why}; send the request again without requestState and inputResponses to start over`,
  );

/**
 * Seals and opens `requestState`: the answers given in earlier rounds, signed with HMAC-SHA256
 * and bound to the call and the caller, with an expiry. The client cannot read it usefully or
 * change it; a tampered, expired, foreign or oversized state is a clear -32602.
 */
export class RequestStateCodec {
  readonly #key: Uint8Array;
  readonly #ttlMs: number;
  readonly maxBytes: number;

  constructor(options: RequestStateOptions = {}) {
    const secret = options.secret ?? randomBytes(32);
    this.#key = typeof secret === "string" ? Buffer.from(secret, "utf8") : secret;
    if (this.#key.length < 16) throw new Error("requestState secret must be at least 16 bytes (32 recommended)");
    this.#ttlMs = options.ttlMs ?? DEFAULT_STATE_TTL_MS;
    this.maxBytes = options.maxBytes ?? DEFAULT_STATE_MAX_BYTES;
  }

  #mac(body: string): Buffer {
    return createHmac("sha256", this.#key).update(body).digest();
  }

  /** The sealed state, or undefined when it would be larger than `maxBytes`. */
  seal(binding: StateBinding, responses: Record<string, unknown>, now = Date.now()): string | undefined {
    const payload: Payload = {
      v: 1,
      m: binding.method,
      t: binding.target,
      d: digestOf(binding.args ?? {}),
      p: binding.principal,
      x: now + this.#ttlMs,
      r: responses,
    };
    const body = Buffer.from(JSON.stringify(payload)).toString("base64url");
    const sealed = `${body}.${this.#mac(body).toString("base64url")}`;
    return sealed.length > this.maxBytes ? undefined : sealed;
  }

  /** The answers a state carries; throws -32602 when it is not one this server sealed for this call. */
  open(state: unknown, binding: StateBinding, now = Date.now()): Record<string, unknown> {
    if (typeof state !== "string" || state === "") throw invalidState("must be the string this server sent");
    if (state.length > this.maxBytes) throw invalidState(`is larger than ${this.maxBytes} bytes`);
    const dot = state.indexOf(".");
    if (dot < 0) throw invalidState("was not issued by this server or was changed");
    const body = state.slice(0, dot);
    // The MAC as this server wrote it, compared as text: decoding what was sent would accept other
    // spellings of the same bytes (padding, whitespace, other unused bits in the last character).
    const mac = Buffer.from(state.slice(dot + 1), "utf8");
    const expected = Buffer.from(this.#mac(body).toString("base64url"), "utf8");
    if (mac.length !== expected.length || !timingSafeEqual(mac, expected)) {
      throw invalidState("was not issued by this server or was changed");
    }
    let payload: Payload;
    try {
      payload = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as Payload;
    } catch {
      throw invalidState("could not be read");
    }
    if (payload.x < now) throw invalidState("has expired");
    if (
      payload.m !== binding.method ||
      payload.t !== binding.target ||
      payload.p !== binding.principal ||
      payload.d !== digestOf(binding.args ?? {})
    ) {
      throw invalidState("belongs to another request (method, name, arguments or caller differ)");
    }
    return payload.r ?? {};
  }
}
