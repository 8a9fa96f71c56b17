import { randomUUID } from "node:crypto";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isInitializeRequest, type JSONRPCMessage, type JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import type { AuthInfo, Logger } from "@toolshed/schema";
import { JsonRpcCode, type ToolshedServer } from "@toolshed/server";
import { AdmittedCalls } from "@toolshed/server/internal";
import type { Charge } from "./admission.js";
import { BatchBudget } from "./batch-budget.js";
import { whenBodyDone } from "./body-done.js";
import type { Exchange } from "./exchange.js";
import { HttpErrorCode, jsonResponse, jsonRpcErrorResponse } from "./http-errors.js";
import { admitCalls, isRequest, readPost, type ScopeCheck } from "./post-body.js";
import { currentRequest, recordOutcome } from "./request-context.js";
import { countRefused, countSession } from "./telemetry.js";
import { methodNotAllowed } from "./wire.js";

export interface SessionsOptions {
  server: ToolshedServer;
  logger: Logger;
  maxBodyBytes: number;
  /** Largest JSON answer to one batch in bytes, as in stateless mode; 0: no limit. */
  maxBatchBytes: number;
  /** A session with no request for this long is closed (ms). */
  idleTimeoutMs: number;
  /** Open sessions at most; more are refused with 503 until some close. */
  maxSessions?: number;
  /**
   * Sessions one client (a credential, or an address without auth) may hold. Opening one more
   * closes its least recently used idle session; when all are busy, the initialize is 429.
   */
  sessionsPerClient?: number;
}

export const DEFAULT_MAX_SESSIONS = 10_000;
export const DEFAULT_SESSIONS_PER_CLIENT = 100;

/** Who sends a request, as the checks in front of /mcp established it. */
export interface Caller {
  authInfo?: AuthInfo;
  /** The credential's owner key (see auth.ts); only the owner of a session may use it. */
  owner?: string;
  /** Whose quota a new session counts against: the owner key, or the address without auth. */
  client: string;
  /** Takes more calls from the caller's rate allowance (a batch). */
  charge?: Charge;
}

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  /** Set once initialize succeeded. */
  id?: string;
  owner: string | undefined;
  client: string;
  lastSeen: number;
  /** Requests and SSE streams open on it right now. */
  active: number;
  /** The budget of the batch each unanswered request of a batch belongs to, by request id. */
  batches: Map<string | number, { budget: BatchBudget; request: JSONRPCRequest }>;
  /** Lone calls whose access the POST checked, for the session's connection to use instead of asking again. */
  admitted: AdmittedCalls;
}

const missingSession = () =>
  jsonRpcErrorResponse(400, HttpErrorCode.Transport, "Bad Request: Mcp-Session-Id header is required");
const unknownSession = () => jsonRpcErrorResponse(404, HttpErrorCode.SessionNotFound, "Session not found");

/**
 * Stateful sessions on the SDK's Streamable HTTP transport: one transport and one connection
 * to the shared runtime per session, needed for server-to-client requests (sampling,
 * elicitation). Sessions end on DELETE, when idle too long, and on close().
 */
export class Sessions {
  readonly #sessions = new Map<string, Session>();
  /** Each client's sessions, those still initializing included (so parallel opens count). */
  readonly #byClient = new Map<string, Set<Session>>();
  #opening = 0;
  readonly #options: SessionsOptions;
  readonly #sweeper: NodeJS.Timeout;
  #closed = false;

  constructor(options: SessionsOptions) {
    this.#options = options;
    const every = Math.max(50, Math.min(options.idleTimeoutMs / 2, 60_000));
    this.#sweeper = setInterval(() => this.#sweep(), every);
    this.#sweeper.unref();
  }

  get size(): number {
    return this.#sessions.size;
  }

  async handle(ex: Exchange, caller: Caller, checkScopes?: ScopeCheck): Promise<Response> {
    if (ex.method === "POST") return this.#post(ex, caller, checkScopes);
    if (ex.method !== "GET" && ex.method !== "DELETE") return methodNotAllowed("GET, POST, DELETE");
    const found = this.#lookup(ex, caller.owner);
    if (found instanceof Response) return found;
    const { authInfo } = caller;
    const request = transportRequest(ex);
    return this.#forward(found, () => found.transport.handleRequest(request, authInfo ? { authInfo } : undefined));
  }

  async #post(ex: Exchange, caller: Caller, checkScopes: ScopeCheck | undefined): Promise<Response> {
    const { authInfo, owner, charge } = caller;
    const parsed = await readPost(ex, this.#options.maxBodyBytes);
    if (!parsed.ok) return parsed.response;
    const { batch, messages, errors } = parsed;
    const requests = messages.filter(isRequest);
    if (errors.length > 0) {
      // The SDK transport takes a body whole; a batch with an invalid message is refused whole,
      // with an answer for every request in it (C12).
      const notProcessed = requests.map((m) => ({
        jsonrpc: "2.0" as const,
        id: m.id,
        error: {
          code: JsonRpcCode.InvalidRequest,
          message: "Invalid Request: not processed, because the batch holds an invalid message",
        },
      }));
      const all = [...errors, ...notProcessed];
      return jsonResponse(400, batch ? all : all[0]);
    }
    const admitted = await admitCalls(requests, !batch, { authInfo, charge, checkScopes });
    if (admitted instanceof Response) return admitted;
    const options = { parsedBody: batch ? messages : messages[0], ...(authInfo ? { authInfo } : {}) };
    const request = transportRequest(ex);
    // The SDK's own test (it checks initialize's params), so a malformed initialize opens nothing.
    if (ex.headers.get("mcp-session-id") === null && messages.some(isInitializeRequest)) {
      return this.#open(request, options, caller);
    }
    const found = this.#lookup(ex, owner);
    if (found instanceof Response) return found;
    if (requests.length > 1 && this.#options.maxBatchBytes > 0) {
      // The transport frames each answer as it is sent; the budget decides what it sends.
      const budget = new BatchBudget(this.#options.maxBatchBytes);
      for (const m of requests) found.batches.set(m.id, { budget, request: m });
    }
    // The transport hands the message to the session's connection before handleRequest returns;
    // the access the POST found goes with it, so the core does not check again.
    const lone = requests.length === 1 ? requests[0] : undefined;
    const release = lone && admitted ? found.admitted.add(lone, authInfo, admitted) : undefined;
    try {
      return await this.#forward(found, () => found.transport.handleRequest(request, options));
    } finally {
      release?.();
    }
  }

  async #open(
    request: Request,
    options: { parsedBody: unknown; authInfo?: AuthInfo },
    caller: Caller,
  ): Promise<Response> {
    if (this.#closed) {
      countRefused("shutting_down");
      return jsonRpcErrorResponse(503, HttpErrorCode.Transport, "Service Unavailable: shutting down");
    }
    const { owner, client } = caller;
    // The client's own quota first: making room there may also make room under the global cap.
    const quota = this.#options.sessionsPerClient ?? DEFAULT_SESSIONS_PER_CLIENT;
    const own = this.#byClient.get(client);
    if (own && own.size >= quota && !this.#evictIdle(own, quota)) {
      countRefused("session_limit");
      return jsonRpcErrorResponse(
        429,
        HttpErrorCode.Transport,
        `Too Many Requests: this client has ${quota} sessions open and each is busy (a request or an SSE stream); end one with DELETE and its Mcp-Session-Id, or close its stream, then initialize again`,
      );
    }
    const max = this.#options.maxSessions ?? DEFAULT_MAX_SESSIONS;
    if (this.#sessions.size + this.#opening >= max) {
      countRefused("session_limit");
      return jsonRpcErrorResponse(
        503,
        HttpErrorCode.Transport,
        `Service Unavailable: ${max} sessions are open; retry later or close unused sessions with DELETE`,
        { "Retry-After": "60" },
      );
    }
    const session: Session = {
      transport: undefined as never,
      owner,
      client,
      lastSeen: Date.now(),
      active: 0,
      batches: new Map(),
      admitted: new AdmittedCalls(),
    };
    // Counted against the cap from now on: as opening until initialized, then as open.
    this.#opening++;
    let opening = true;
    const opened = () => {
      if (opening) this.#opening--;
      opening = false;
    };
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        opened();
        session.id = id;
        this.#sessions.set(id, session);
        countSession(1);
        const record = currentRequest();
        if (record) record.sessionId = id;
        this.#options.logger.info(
          { sessionId: id, tokenId: record?.tokenId, sessions: this.#sessions.size },
          "session opened",
        );
      },
    });
    session.transport = transport;
    transport.onclose = () => this.#forget(session, "session closed");
    const send = transport.send.bind(transport);
    transport.send = (message, sendOptions) => send(withinBatch(session, message), sendOptions);
    this.#clientSessions(client).add(session);
    try {
      await this.#options.server.connect(transport, { onToolOutcome: recordOutcome, admitted: session.admitted });
      const response = await this.#forward(session, () => transport.handleRequest(request, options));
      // An initialize that failed leaves no session behind.
      if (session.id === undefined) {
        this.#forget(session);
        await transport.close();
      }
      return response;
    } catch (error) {
      this.#forget(session);
      await transport.close().catch(() => {});
      throw error;
    } finally {
      opened();
    }
  }

  #clientSessions(client: string): Set<Session> {
    let set = this.#byClient.get(client);
    if (!set) {
      set = new Set();
      this.#byClient.set(client, set);
    }
    return set;
  }

  /** Drops a session from the books (once); logs `why` when it was open. */
  #forget(session: Session, why?: string): void {
    const own = this.#byClient.get(session.client);
    if (own?.delete(session) && own.size === 0) this.#byClient.delete(session.client);
    const { id } = session;
    if (id !== undefined && this.#sessions.get(id) === session) {
      this.#sessions.delete(id);
      countSession(-1);
      if (why) this.#options.logger.info({ sessionId: id, sessions: this.#sessions.size }, why);
    }
  }

  /** Closes the client's least recently used idle sessions until it is under `quota`; false when none is idle. */
  #evictIdle(own: Set<Session>, quota: number): boolean {
    while (own.size >= quota) {
      let oldest: Session | undefined;
      for (const s of own) {
        if (s.active === 0 && s.id !== undefined && (!oldest || s.lastSeen < oldest.lastSeen)) oldest = s;
      }
      if (!oldest) return false;
      const record = currentRequest();
      this.#options.logger.info(
        { sessionId: oldest.id, tokenId: record?.tokenId, limit: quota },
        "session evicted: its client opened more than its quota of sessions (--sessions-per-client)",
      );
      this.#forget(oldest);
      void oldest.transport.close();
    }
    return true;
  }

  #lookup(ex: Exchange, owner: string | undefined): Session | Response {
    const id = ex.headers.get("mcp-session-id");
    if (id === null) return missingSession();
    const session = this.#sessions.get(id);
    // Someone else's session is reported as unknown: its id is not a credential.
    if (!session || session.owner !== owner) return unknownSession();
    const record = currentRequest();
    if (record) record.sessionId = id;
    return session;
  }

  async #forward(session: Session, run: () => Promise<Response>): Promise<Response> {
    session.active++;
    session.lastSeen = Date.now();
    const end = () => {
      session.active--;
      session.lastSeen = Date.now();
    };
    try {
      return whenBodyDone(await run(), end);
    } catch (error) {
      end();
      throw error;
    }
  }

  #sweep(): void {
    const now = Date.now();
    for (const [id, session] of this.#sessions) {
      if (session.active === 0 && now - session.lastSeen > this.#options.idleTimeoutMs) {
        this.#options.logger.info({ sessionId: id }, "session idle too long, closing");
        void session.transport.close();
      }
    }
  }

  /** Closes every session (their open streams end). */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#sweeper);
    await Promise.allSettled([...this.#sessions.values()].map((s) => s.transport.close()));
    if (this.#sessions.size > 0) countSession(-this.#sessions.size);
    this.#sessions.clear();
    this.#byClient.clear();
  }
}

/** An answer to a request of a batch, or its replacement once the batch's answers are too large. */
function withinBatch(session: Session, message: JSONRPCMessage): JSONRPCMessage {
  if (session.batches.size === 0 || !("id" in message) || "method" in message) return message;
  const id = message.id;
  if (id === undefined) return message;
  const entry = session.batches.get(id);
  if (entry === undefined) return message;
  session.batches.delete(id);
  return entry.budget.fit(message, entry.request) as JSONRPCMessage;
}

/**
 * The request the SDK transport reads (headers only: a POST's body is passed to it parsed). Media
 * types are case-insensitive (RFC 9110); the transport compares Accept as written.
 */
function transportRequest(ex: Exchange): Request {
  const request = ex.toRequest();
  const accept = request.headers.get("accept");
  if (accept === null || accept === accept.toLowerCase()) return request;
  const headers = new Headers(request.headers);
  headers.set("accept", accept.toLowerCase());
  return new Request(request.url, { method: request.method, headers });
}
