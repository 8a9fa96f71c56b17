import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { JsonRpcCode } from "./jsonrpc-error.js";

export interface JsonRpcErrorResponse {
  jsonrpc: "2.0";
  id: string | number | null;
  error: { code: number; message: string };
}

/** A message to dispatch, or the error answer for one that cannot be (C12). */
export type CheckedMessage = { ok: true; message: JSONRPCMessage } | { ok: false; response?: JsonRpcErrorResponse };

function errorResponse(id: string | number | null, code: number, message: string): JsonRpcErrorResponse {
  return { jsonrpc: "2.0", id, error: { code, message } };
}

function validId(id: unknown): id is string | number {
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id));
}

const REQUEST_KEYS = new Set(["jsonrpc", "id", "method", "params"]);

/**
 * A `_meta` the SDK's request schema accepts without looking further: an object whose progress
 * token, if any, is a string or a safe integer (the SDK refuses larger ones), and that names no
 * task (every 2026-07-28 request carries one).
 */
function plainMeta(meta: unknown): boolean {
  if (typeof meta !== "object" || meta === null || Array.isArray(meta)) return false;
  const { progressToken } = meta as { progressToken?: unknown };
  if (progressToken !== undefined && typeof progressToken !== "string" && !Number.isSafeInteger(progressToken)) {
    return false;
  }
  return !("io.modelcontextprotocol/related-task" in meta);
}

/**
 * A request or notification (already checked above) with no other keys and a plain `_meta` or
 * none: the SDK's message schema always accepts one, so its union parse, a large share of a small
 * call's cost, can be skipped.
 */
function plainRequestOrNotification(m: Record<string, unknown>): boolean {
  for (const key in m) if (!REQUEST_KEYS.has(key)) return false;
  // The SDK takes only safe integers as numeric ids.
  if (typeof m.id === "number" && !Number.isSafeInteger(m.id)) return false;
  const params = m.params as Record<string, unknown> | undefined;
  return params === undefined || !("_meta" in params) || plainMeta(params._meta);
}

/**
 * Checks one parsed JSON value as a JSON-RPC 2.0 message. A bad message that carries a usable
 * id gets an answer with that id; one without gets an answer with id null unless it was
 * clearly a notification, which JSON-RPC never answers.
 */
export function checkJsonRpcMessage(value: unknown): CheckedMessage {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return {
      ok: false,
      response: errorResponse(null, JsonRpcCode.InvalidRequest, "Invalid Request: a message must be a JSON object"),
    };
  }
  const m = value as Record<string, unknown>;
  const hasId = "id" in m;
  const id = validId(m.id) ? m.id : null;
  const isResponse = !("method" in m) && ("result" in m || "error" in m);
  const invalid = (why: string): CheckedMessage => {
    // Notifications and responses are never answered, or two peers could bounce errors forever.
    if (!hasId && typeof m.method === "string") return { ok: false };
    if (isResponse) return { ok: false };
    return { ok: false, response: errorResponse(id, JsonRpcCode.InvalidRequest, `Invalid Request: ${why}`) };
  };
  if (m.jsonrpc !== "2.0") return invalid('"jsonrpc" must be "2.0"');
  if (hasId && !validId(m.id)) return invalid('"id" must be a string or a number');
  if ("method" in m) {
    if (typeof m.method !== "string" || m.method === "") return invalid('"method" must be a non-empty string');
    if ("params" in m && (typeof m.params !== "object" || m.params === null || Array.isArray(m.params))) {
      return invalid('"params" must be an object');
    }
  } else if (!hasId || !("result" in m || "error" in m)) {
    return invalid('a message needs "method" (a request or notification) or "result"/"error" with "id" (a response)');
  }
  if ("method" in m && plainRequestOrNotification(m)) return { ok: true, message: m as JSONRPCMessage };
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (!parsed.success) return invalid("the message does not have the shape of a JSON-RPC 2.0 message");
  return { ok: true, message: parsed.data as JSONRPCMessage };
}

/** Parses one line or body of text into messages to dispatch and answers to send at once. */
export function parseJsonRpcText(text: string): { messages: JSONRPCMessage[]; responses: JsonRpcErrorResponse[] } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return {
      messages: [],
      responses: [errorResponse(null, JsonRpcCode.ParseError, "Parse error: the message is not valid JSON")],
    };
  }
  const items = Array.isArray(value) ? value : [value];
  if (Array.isArray(value) && value.length === 0) {
    return {
      messages: [],
      responses: [errorResponse(null, JsonRpcCode.InvalidRequest, "Invalid Request: an empty batch")],
    };
  }
  const messages: JSONRPCMessage[] = [];
  const responses: JsonRpcErrorResponse[] = [];
  for (const item of items) {
    const checked = checkJsonRpcMessage(item);
    if (checked.ok) messages.push(checked.message);
    else if (checked.response) responses.push(checked.response);
  }
  return { messages, responses };
}
