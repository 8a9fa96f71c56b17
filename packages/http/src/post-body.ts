import { MAX_BATCH_SIZE } from "@modelcontextprotocol/sdk/server/requestBody.js";
import type { JSONRPCMessage, JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import type { AuthInfo } from "@toolshed/schema";
import {
  checkJsonRpcMessage,
  type JsonRpcErrorResponse,
  parseJsonRpcText,
  type RequestAccess,
} from "@toolshed/server/internal";
import type { Charge } from "./admission.js";
import { HttpErrorCode, jsonResponse, jsonRpcErrorResponse } from "./http-errors.js";
import { countRefused } from "./telemetry.js";
import { checkPostHeaders, type HeaderReader } from "./wire.js";

// The first steps of every POST /mcp, stateless or in a session: the headers, the body read and
// capped once, parsed once into messages, and the calls admitted (a batch's rate charge, a lone
// call's scopes).

/**
 * The 403 insufficient_scope answer for a lone request the caller may see but lacks a scope for
 * (the spec's step-up challenge); else the caller's access to what it names, which the core then
 * does not check again; undefined when it names nothing guarded.
 */
export type ScopeCheck = (
  request: JSONRPCRequest,
  authInfo: AuthInfo | undefined,
) => Response | RequestAccess | undefined;

/** One POST as both modes read it, from a Fetch Request or from node:http. */
export interface PostBody {
  headers: HeaderReader;
  readBody(maxBytes: number): Promise<{ text: string } | { response: Response }>;
}

/** Messages to dispatch and the error answers for those that cannot be, from one request body. */
export type ParsedBody =
  | { ok: true; batch: boolean; messages: JSONRPCMessage[]; errors: JsonRpcErrorResponse[] }
  | { ok: false; response: Response };

// For messages that passed checkJsonRpcMessage. The SDK's type guards run a Zod parse per
// message, a large share of a small call's cost.
export const isRequest = (m: JSONRPCMessage): m is JSONRPCRequest => "method" in m && "id" in m;
export const isInitialize = (m: JSONRPCMessage) => isRequest(m) && m.method === "initialize";

/** 406/415 for the wrong headers, 413 for a body over `maxBodyBytes`, else the body parsed (C12). */
export async function readPost(post: PostBody, maxBodyBytes: number): Promise<ParsedBody> {
  const rejected = checkPostHeaders(post.headers);
  if (rejected) return { ok: false, response: rejected };
  const body = await post.readBody(maxBodyBytes);
  if ("response" in body) {
    if (body.response.status === 413) countRefused("body_too_large");
    return { ok: false, response: body.response };
  }
  return parseBody(body.text);
}

/** Parses a POST body as one JSON-RPC message or a batch, with the answers C12 requires. */
export function parseBody(text: string): ParsedBody {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, response: jsonResponse(400, parseJsonRpcText(text).responses[0]) };
  }
  if (Array.isArray(value) && value.length > MAX_BATCH_SIZE) {
    return {
      ok: false,
      response: jsonRpcErrorResponse(
        400,
        HttpErrorCode.InvalidRequest,
        `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`,
      ),
    };
  }
  if (Array.isArray(value) && value.length === 0) {
    return { ok: false, response: jsonResponse(400, parseJsonRpcText("[]").responses[0]) };
  }
  const batch = Array.isArray(value);
  const messages: JSONRPCMessage[] = [];
  const errors: JsonRpcErrorResponse[] = [];
  for (const item of batch ? (value as unknown[]) : [value]) {
    const checked = checkJsonRpcMessage(item);
    if (checked.ok) messages.push(checked.message);
    else if (checked.response) errors.push(checked.response);
  }
  if (messages.some(isInitialize) && messages.length + errors.length > 1) {
    return {
      ok: false,
      response: jsonRpcErrorResponse(
        400,
        HttpErrorCode.InvalidRequest,
        "Invalid Request: Only one initialization request is allowed",
      ),
    };
  }
  return { ok: true, batch, messages, errors };
}

/** Who sends the calls of a POST, and what admits them. */
export interface CallAdmission {
  authInfo?: AuthInfo | undefined;
  /** Takes more calls from the caller's rate allowance (a batch); a 429 when refused. */
  charge?: Charge | undefined;
  checkScopes?: ScopeCheck | undefined;
}

/**
 * The POST paid for one call; a batch pays for each of its requests beyond the first before any
 * runs. A `lone` request the caller lacks a scope for gets the 403 challenge (counted); else its
 * access, when checked. Otherwise undefined: dispatch them.
 */
export async function admitCalls(
  requests: readonly JSONRPCRequest[],
  lone: boolean,
  admission: CallAdmission,
): Promise<Response | RequestAccess | undefined> {
  if (requests.length > 1 && admission.charge) {
    const refused = await admission.charge(requests.length - 1);
    if (refused) return refused;
  }
  const only = requests[0];
  return lone && only !== undefined ? checkScope(only, admission) : undefined;
}

/** The 403 challenge for a request the caller lacks a scope for, counted; else its access when checked. */
export function checkScope(request: JSONRPCRequest, admission: CallAdmission): Response | RequestAccess | undefined {
  const verdict = admission.checkScopes?.(request, admission.authInfo);
  if (verdict instanceof Response) countRefused("forbidden");
  return verdict;
}
