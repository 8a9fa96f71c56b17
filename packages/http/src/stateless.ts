import type { JSONRPCMessage, JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import type { AuthInfo, HeaderParam } from "@toolshed/schema";
import { JsonRpcCode } from "@toolshed/server";
import type { Cancellation } from "@toolshed/server/internal";
import {
  DEFAULT_MAX_BATCH_BYTES,
  isModernMeta,
  type JsonRpcErrorResponse,
  type Meta,
  metaOf,
} from "@toolshed/server/internal";
import type { Charge } from "./admission.js";
import { BatchBudget } from "./batch-budget.js";
import type { Dispatch, PostScope, RequestFacts } from "./dispatcher.js";
import type { JsonAnswer } from "./exchange.js";
import { HttpErrorCode } from "./http-errors.js";
import { checkParamHeaders } from "./param-headers.js";
import { batchAnswer, json, sseAnswer, streams } from "./post-answer.js";
import {
  admitCalls,
  checkScope,
  isInitialize,
  isRequest,
  type PostBody,
  readPost,
  type ScopeCheck,
} from "./post-body.js";
import type { RequestRecord } from "./request-context.js";
import { countRefused } from "./telemetry.js";
import { checkModernHeaders, checkProtocolVersion, type HeaderReader, hasModernHeader } from "./wire.js";

/** A tool's `x-mcp-header` parameters; undefined for a tool this server does not have. */
export type HeaderParams = (tool: string) => readonly HeaderParam[] | undefined;

export interface StatelessOptions {
  dispatch: Dispatch;
  /** A tool's `x-mcp-header` parameters, checked against `Mcp-Param-*` headers (2026-07-28). */
  headerParams?: HeaderParams;
  maxBodyBytes: number;
  /** Largest JSON answer to one batch in bytes (default 16 MiB); calls past it get a `too_large` error. 0: no limit. */
  maxBatchBytes?: number;
  checkScopes?: ScopeCheck;
  /**
   * Takes one of the caller's subscriptions/listen slots, freed when the stream ends; false when
   * the caller holds its quota (a 429).
   */
  openListen?: () => boolean;
}

/** One stateless POST as the handler needs it, from a Fetch Request or from node:http. */
export interface StatelessPost extends PostBody {
  /** Aborted when the client goes away or the server stops waiting (see InFlight.begin). */
  cancel: Cancellation;
  /** The request's log record. */
  record?: RequestRecord;
  /** Charges the calls of a batch beyond the first to the caller's rate allowance (a 429 when refused). */
  charge?: Charge;
}

type Parsed = { batch: boolean; messages: JSONRPCMessage[]; errors: JsonRpcErrorResponse[] };

/**
 * POST /mcp without sessions: every request is answered from the shared protocol core. JSON by
 * default; SSE when a call asked for progress, so progress and log notifications arrive first.
 */
export async function answerStatelessPost(
  post: StatelessPost,
  authInfo: AuthInfo | undefined,
  options: StatelessOptions,
): Promise<Response | JsonAnswer> {
  const parsed = await readPost(post, options.maxBodyBytes);
  if (!parsed.ok) return parsed.response;
  const scope: PostScope = { cancel: post.cancel, headers: post.headers };
  if (authInfo) scope.authInfo = authInfo;
  if (post.record) scope.record = post.record;
  const first = parsed.messages[0];
  const lone = !parsed.batch && first !== undefined && isRequest(first) ? first : undefined;
  // A lone request's `_meta`, read here once: the era, streaming, the header checks and the core use it.
  const meta = lone && metaOf(lone.params);
  // A 2026-07-28 POST: by its MCP-Protocol-Version header, or a lone request that names its
  // version in `_meta` (or is server/discover). Such a request never opens a session.
  if (hasModernHeader(post.headers) || (lone && isModernMeta(lone.method, meta))) {
    return answerModern(post, scope, options, parsed, meta);
  }
  return answerLegacy(post, scope, options, parsed, meta);
}

async function answerLegacy(
  post: StatelessPost,
  scope: PostScope,
  options: StatelessOptions,
  { batch, messages, errors }: Parsed,
  meta: Meta | undefined,
): Promise<Response | JsonAnswer> {
  if (!messages.some(isInitialize)) {
    const badVersion = checkProtocolVersion(post.headers);
    if (badVersion) return badVersion;
  }
  const requests = messages.filter(isRequest);
  if (requests.length === 0) {
    // Notifications and responses only: nothing to answer, except messages that were invalid.
    if (errors.length === 0) return { status: 202 };
    return json(400, batch ? errors : errors[0]);
  }
  const verdict = await admitCalls(requests, !batch, {
    authInfo: scope.authInfo,
    charge: post.charge,
    checkScopes: options.checkScopes,
  });
  if (verdict instanceof Response) return verdict;
  const { dispatch } = options;
  if (!batch) {
    // One request, whose `_meta` was read.
    const lone = requests[0] as JSONRPCRequest;
    const facts: RequestFacts = { era: "legacy", meta: meta ?? null };
    if (verdict) facts.access = verdict;
    if (streams(lone.method, meta)) {
      return sseAnswer(requests, errors, (m, notify) => dispatch(m, scope, { ...facts, notify }), scope.cancel);
    }
    return json(200, (await dispatch(lone, scope, facts))?.answer);
  }
  const budget = new BatchBudget(options.maxBatchBytes ?? DEFAULT_MAX_BATCH_BYTES);
  if (requests.some((r) => streams(r.method, metaOf(r.params)))) {
    return sseAnswer(requests, errors, (m, notify) => dispatch(m, scope, { notify }), scope.cancel, budget);
  }
  const answers = await Promise.all(requests.map(async (m) => (await dispatch(m, scope))?.answer));
  return batchAnswer(requests, answers, errors, budget);
}

/** A tools/call whose `Mcp-Param-*` headers do not say what its arguments say (see checkParamHeaders). */
function paramHeaderMismatch(
  headers: HeaderReader,
  request: JSONRPCRequest,
  options: StatelessOptions,
): string | undefined {
  if (request.method !== "tools/call" || options.headerParams === undefined) return undefined;
  const { name, arguments: args } = (request.params ?? {}) as { name?: unknown; arguments?: unknown };
  const params = typeof name === "string" ? options.headerParams(name) : undefined;
  return params && params.length > 0 ? checkParamHeaders(headers, args, params) : undefined;
}

/** How many task ids a subscriptions/listen asks to watch (a malformed list is the core's to refuse). */
function taskIdsOf(request: JSONRPCRequest): number {
  const ids = (request.params as { notifications?: { taskIds?: unknown } } | undefined)?.notifications?.taskIds;
  return Array.isArray(ids) ? ids.length : 0;
}

/** The id an error answer carries: the request's when the body had a usable one. */
const errorAnswer = (id: string | number | null, code: number, message: string) =>
  json(400, { jsonrpc: "2.0", id, error: { code, message } });

async function answerModern(
  post: StatelessPost,
  scope: PostScope,
  options: StatelessOptions,
  { batch, messages, errors }: Parsed,
  meta: Meta | undefined,
): Promise<Response | JsonAnswer> {
  const first = messages[0];
  if (batch) {
    const id = first && isRequest(first) ? first.id : null;
    return errorAnswer(
      id,
      JsonRpcCode.InvalidRequest,
      "Invalid Request: 2026-07-28 takes one JSON-RPC message per POST, not a batch",
    );
  }
  if (errors.length > 0) return json(400, errors[0]);
  if (!first || !isRequest(first)) return { status: 202 };
  const { headers } = post;
  const mismatch = checkModernHeaders(headers, first, meta);
  if (mismatch) return errorAnswer(first.id, JsonRpcCode.HeaderMismatch, mismatch);
  const verdict = checkScope(first, { authInfo: scope.authInfo, checkScopes: options.checkScopes });
  if (verdict instanceof Response) return verdict;
  // A tool the caller may not see is answered as unknown by the call, not by its headers.
  const paramMismatch = verdict?.ok === false ? undefined : paramHeaderMismatch(headers, first, options);
  if (paramMismatch) return errorAnswer(first.id, JsonRpcCode.HeaderMismatch, paramMismatch);
  // Each task a listen watches is read as a tasks/get would be: the ids beyond the first are
  // charged to the caller's allowance, as a batch's calls are.
  const watched = first.method === "subscriptions/listen" ? taskIdsOf(first) : 0;
  if (watched > 1 && post.charge) {
    const refused = await post.charge(watched - 1);
    if (refused) return refused;
  }
  if (first.method === "subscriptions/listen" && options.openListen && !options.openListen()) {
    countRefused("listen_limit");
    return json(429, {
      jsonrpc: "2.0",
      id: first.id,
      error: {
        code: HttpErrorCode.Transport,
        message:
          "Too Many Requests: this client has as many subscriptions/listen streams open as the server allows; close one, or listen for several resources in one stream (notifications.resourceSubscriptions takes a list of URIs)",
      },
    });
  }
  const { dispatch } = options;
  const facts: RequestFacts = { era: "modern", meta: meta ?? null };
  if (verdict) facts.access = verdict;
  if (streams(first.method, meta)) {
    return sseAnswer([first], [], (m, notify) => dispatch(m, scope, { ...facts, notify }), scope.cancel);
  }
  const reply = await dispatch(first, scope, facts);
  return reply ? json(reply.status, reply.answer) : { status: 202 };
}
