import type { JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import { internalErrorMessage, newErrorRef } from "@toolshed/errors/internal";
import type { AuthInfo, Logger } from "@toolshed/schema";
import type { RequestAccess } from "@toolshed/server/internal";
import { Cancellation } from "@toolshed/server/internal";
import { type AdmissionOptions, admit } from "./admission.js";
import { type CorsPolicy, corsHeaders, preflight } from "./cors.js";
import type { Dispatch } from "./dispatcher.js";
import { type Exchange, type HttpAnswer, jsonAnswer, withHeaders } from "./exchange.js";
import { checkHostAndOrigin } from "./guards.js";
import { HttpErrorCode, jsonRpcErrorResponse } from "./http-errors.js";
import type { InFlight } from "./in-flight.js";
import type { ListenQuota } from "./listen-quota.js";
import type { ScopeCheck } from "./post-body.js";
import { type RequestRecord, runInRequest } from "./request-context.js";
import { newRequestRecord, type RequestListener, summarize } from "./request-log.js";
import type { Sessions } from "./sessions.js";
import { answerStatelessPost, type HeaderParams } from "./stateless.js";
import { RESOURCE_METADATA_PATH } from "./well-known.js";
import { answeredWithoutSession, methodNotAllowed } from "./wire.js";

/**
 * Readiness with its reason, as /readyz shows it: `ready` decides 200 or 503; the rest is added to
 * the JSON (no secrets: /readyz takes no token).
 */
export interface ReadinessReport {
  ready: boolean;
  /** What is wrong with, or slowing, the database: `unreachable`, `cannot_write`, `busy`… */
  database?: string;
  /** In words, for an operator. */
  reason?: string;
}

export interface PipelineOptions extends AdmissionOptions {
  /** Path of the MCP endpoint. */
  path: string;
  dispatch: Dispatch;
  /** A tool's `x-mcp-header` parameters, checked against `Mcp-Param-*` headers (2026-07-28). */
  headerParams?: HeaderParams;
  sessions: Sessions | undefined;
  inFlight: InFlight;
  maxBodyBytes: number;
  /** Largest JSON answer to one batch (stateless); see StatelessOptions. */
  maxBatchBytes?: number;
  /** The runtime's logger (unhandled errors). */
  logger: Logger;
  /** Readiness for /readyz. */
  ready: () => boolean | ReadinessReport | Promise<boolean | ReadinessReport>;
  /** The OAuth protected resource metadata, when auth is on. */
  metadata?: (baseUrl: string) => unknown;
  cors?: CorsPolicy;
  /** 403 insufficient_scope for a call the caller may see but lacks a scope for (given the public base URL). */
  checkScopes?: (
    request: JSONRPCRequest,
    authInfo: AuthInfo | undefined,
    baseUrl: string,
  ) => Response | RequestAccess | undefined;
  /** Every request, once its answer has been sent (or the client left): the request log. */
  onRequest: RequestListener;
  /** Each client's open subscriptions/listen streams. */
  listens?: ListenQuota;
}

/** An answer, and what the adapter calls once it has been sent or the client has gone. */
export interface Handled {
  answer: HttpAnswer;
  sent(status: number): void;
}

const HEALTH = "/healthz";
const READY = "/readyz";

/**
 * The one request pipeline of the Streamable HTTP server: routing, CORS, admission (shutdown,
 * Host/Origin, tokens in URLs, auth, rate limits), the MCP endpoint (stateless or sessions),
 * in-flight tracking, errors and the request log. Adapters only translate requests and answers.
 */
export class Pipeline {
  readonly #o: PipelineOptions;
  readonly #metadataPaths: Set<string>;

  constructor(options: PipelineOptions) {
    this.#o = options;
    this.#metadataPaths = new Set(
      options.metadata ? [RESOURCE_METADATA_PATH, `${RESOURCE_METADATA_PATH}${options.path}`] : [],
    );
  }

  async handle(ex: Exchange): Promise<Handled> {
    const started = performance.now();
    const record = newRequestRecord(ex.headers.get("x-request-id"));
    const ends: (() => void)[] = [];
    let answer: HttpAnswer;
    try {
      answer = await this.#route(ex, record, ends);
    } catch (error) {
      const ref = newErrorRef();
      this.#o.logger.error({ ref, reqId: record.id, err: error }, "unhandled error answering an HTTP request");
      answer = jsonRpcErrorResponse(500, HttpErrorCode.InternalError, internalErrorMessage(ref));
    }
    const extra: Record<string, string> = { "x-request-id": record.id };
    if (this.#o.cors) Object.assign(extra, corsHeaders(ex.headers, this.#o.cors));
    answer = withHeaders(answer, extra);
    let done = false;
    return {
      answer,
      sent: (status) => {
        if (done) return;
        done = true;
        for (const end of ends) end();
        const { onRequest } = this.#o;
        if (onRequest.wants?.(status) !== false) onRequest(summarize(record, ex, status, started));
      },
    };
  }

  // Not async: the MCP path returns its own promise, one less to make and await.
  #route(ex: Exchange, record: RequestRecord, ends: (() => void)[]): HttpAnswer | Promise<HttpAnswer> {
    const o = this.#o;
    const { path, method } = ex;
    if (method === "OPTIONS" && o.cors) return preflight(ex.headers, o.cors, o.policy, ex.url);
    if (path === o.path) return this.#mcp(ex, record, ends);
    const read = method === "GET" || method === "HEAD";
    // Probes and metadata get the Host and Origin checks of /mcp: a rebinding page must not read
    // /readyz's database state either. On loopback a probe uses a loopback name (or --allowed-hosts).
    if (read && (path === HEALTH || path === READY)) {
      const foreign = checkHostAndOrigin(ex.headers, o.policy, ex.url);
      if (foreign) return foreign;
      return path === HEALTH ? jsonAnswer(200, { status: "ok" }) : this.#ready();
    }
    if (read && this.#metadataPaths.has(path) && o.metadata) {
      const foreign = checkHostAndOrigin(ex.headers, o.policy, ex.url);
      if (foreign) return foreign;
      if (!URL.canParse(ex.url))
        return jsonRpcErrorResponse(
          400,
          HttpErrorCode.Transport,
          "Bad Request: the Host header is not a host name (name or name:port)",
        );
      return jsonAnswer(200, o.metadata(o.baseUrl(ex.url)));
    }
    return jsonRpcErrorResponse(404, HttpErrorCode.Transport, `Not Found: the MCP endpoint is ${o.path}`);
  }

  async #ready(): Promise<HttpAnswer> {
    if (this.#o.isClosing()) return jsonAnswer(503, { status: "shutting down" });
    let report: ReadinessReport;
    try {
      const answered = await this.#o.ready();
      report = typeof answered === "boolean" ? { ready: answered } : answered;
    } catch {
      report = { ready: false };
    }
    const { ready, database, reason } = report;
    const body = {
      status: ready ? "ready" : "not ready",
      ...(database === undefined ? {} : { database }),
      ...(reason === undefined ? {} : { reason }),
    };
    return jsonAnswer(ready ? 200 : 503, body);
  }

  async #mcp(ex: Exchange, record: RequestRecord, ends: (() => void)[]): Promise<HttpAnswer> {
    const o = this.#o;
    const admitted = await admit(ex, record, o);
    if (!admitted.ok) return admitted.response;
    const { checkScopes } = o;
    const scopeCheck: ScopeCheck | undefined =
      checkScopes && admitted.authInfo
        ? (request, authInfo) => checkScopes(request, authInfo, o.baseUrl(ex.url))
        : undefined;
    // 2026-07-28 requests never open or use a session, even when sessions are on.
    if (o.sessions && !(ex.method === "POST" && answeredWithoutSession(ex.headers))) {
      // Open GET streams are not waited for at shutdown; POST and DELETE are.
      if (ex.method !== "GET") ends.push(o.inFlight.begin());
      // The SDK transport sits between here and the calls: the record travels in the async context.
      const { sessions } = o;
      return runInRequest(record, () => sessions.handle(ex, admitted, scopeCheck));
    }
    if (ex.method !== "POST") return methodNotAllowed("POST");
    const cancel = new Cancellation();
    ends.push(
      o.inFlight.begin(cancel),
      ex.onClientGone((reason) => cancel.abort(reason)),
    );
    return answerStatelessPost(
      {
        headers: ex.headers,
        readBody: (max) => ex.readBody(max),
        cancel,
        record,
        ...(admitted.charge ? { charge: admitted.charge } : {}),
      },
      admitted.authInfo,
      {
        dispatch: o.dispatch,
        ...(o.headerParams ? { headerParams: o.headerParams } : {}),
        maxBodyBytes: o.maxBodyBytes,
        ...(o.maxBatchBytes === undefined ? {} : { maxBatchBytes: o.maxBatchBytes }),
        ...(scopeCheck ? { checkScopes: scopeCheck } : {}),
        ...(o.listens ? { openListen: () => this.#openListen(o.listens as ListenQuota, admitted.client, ends) } : {}),
      },
    );
  }

  /** A listen slot of `client`, given back with the answer's end (sent, or the client gone). */
  #openListen(listens: ListenQuota, client: string, ends: (() => void)[]): boolean {
    const release = listens.take(client);
    if (release) ends.push(release);
    return release !== undefined;
  }
}
