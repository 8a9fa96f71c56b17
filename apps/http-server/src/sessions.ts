import { randomUUID } from "node:crypto";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isInitializeRequest, isJSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import type { AuthInfo, Logger } from "@toolshed/schema";
import { JsonRpcCode, type ToolshedServer } from "@toolshed/server";
import { whenBodyDone } from "./body-done.js";
import { HttpErrorCode, jsonResponse, jsonRpcErrorResponse } from "./http-errors.js";
import type { Charge } from "./mcp-route.js";
import { currentRequest } from "./request-context.js";
import { parseBody } from "./stateless.js";
import { checkPostHeaders, methodNotAllowed, readBody } from "./wire.js";

export interface SessionsOptions {
  server: ToolshedServer;
  logger: Logger;
  maxBodyBytes: number;
  /** A session with no request for this long is closed (ms). */
  idleTimeoutMs: number;
  /** Open sessions at most; more are refused with 503 until some close. */
  maxSessions?: number;
}

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  /** Who opened it (token label); only they may use it. */
  owner: string | undefined;
  lastSeen: number;
  /** Requests and SSE streams open on it right now. */
  active: number;
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

  async handle(
    request: Request,
    authInfo: AuthInfo | undefined,
    owner: string | undefined,
    charge?: Charge,
  ): Promise<Response> {
    // Media types are case-insensitive (RFC 9110); the SDK transport compares them as written.
    const accept = request.headers.get("accept");
    if (accept !== null && accept !== accept.toLowerCase()) request.headers.set("accept", accept.toLowerCase());
    if (request.method === "POST") return this.#post(request, authInfo, owner, charge);
    if (request.method !== "GET" && request.method !== "DELETE") return methodNotAllowed("GET, POST, DELETE");
    const found = this.#lookup(request, owner);
    if (found instanceof Response) return found;
    return this.#forward(found, () => found.transport.handleRequest(request, authInfo ? { authInfo } : undefined));
  }

  async #post(
    request: Request,
    authInfo: AuthInfo | undefined,
    owner: string | undefined,
    charge: Charge | undefined,
  ): Promise<Response> {
    const rejected = checkPostHeaders(request.headers);
    if (rejected) return rejected;
    const body = await readBody(request, this.#options.maxBodyBytes);
    if ("response" in body) return body.response;
    const parsed = parseBody(body.text);
    if (!parsed.ok) return parsed.response;
    const { batch, messages, errors } = parsed;
    if (errors.length > 0) {
      // The SDK transport takes a body whole; a batch with an invalid message is refused whole,
      // with an answer for every request in it (C12).
      const refused = messages.filter(isJSONRPCRequest).map((m) => ({
        jsonrpc: "2.0" as const,
        id: m.id,
        error: {
          code: JsonRpcCode.InvalidRequest,
          message: "Invalid Request: not processed, because the batch holds an invalid message",
        },
      }));
      const all = [...errors, ...refused];
      return jsonResponse(400, batch ? all : all[0]);
    }
    // The POST paid for one call; a batch pays for each of its requests before any runs.
    const calls = messages.filter(isJSONRPCRequest).length;
    if (calls > 1 && charge) {
      const refused = await charge(calls - 1);
      if (refused) return refused;
    }
    const options = { parsedBody: batch ? messages : messages[0], ...(authInfo ? { authInfo } : {}) };
    if (request.headers.get("mcp-session-id") === null && messages.some(isInitializeRequest)) {
      return this.#open(request, options, owner);
    }
    const found = this.#lookup(request, owner);
    if (found instanceof Response) return found;
    return this.#forward(found, () => found.transport.handleRequest(request, options));
  }

  async #open(
    request: Request,
    options: { parsedBody: unknown; authInfo?: AuthInfo },
    owner: string | undefined,
  ): Promise<Response> {
    if (this.#closed) return jsonRpcErrorResponse(503, HttpErrorCode.Transport, "Service Unavailable: shutting down");
    const max = this.#options.maxSessions ?? 10_000;
    if (this.#sessions.size >= max) {
      return jsonRpcErrorResponse(
        503,
        HttpErrorCode.Transport,
        `Service Unavailable: ${max} sessions are open; retry later or close unused sessions with DELETE`,
        { "Retry-After": "60" },
      );
    }
    const session: Session = { transport: undefined as never, owner, lastSeen: Date.now(), active: 0 };
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        this.#sessions.set(id, session);
        const record = currentRequest();
        if (record) record.sessionId = id;
        this.#options.logger.info({ sessionId: id, owner, sessions: this.#sessions.size }, "session opened");
      },
    });
    session.transport = transport;
    transport.onclose = () => {
      const id = transport.sessionId;
      if (id !== undefined && this.#sessions.delete(id)) {
        this.#options.logger.info({ sessionId: id, sessions: this.#sessions.size }, "session closed");
      }
    };
    await this.#options.server.connect(transport);
    const response = await this.#forward(session, () => transport.handleRequest(request, options));
    // An initialize that failed leaves no session behind.
    if (transport.sessionId === undefined) await transport.close();
    return response;
  }

  #lookup(request: Request, owner: string | undefined): Session | Response {
    const id = request.headers.get("mcp-session-id");
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
    this.#sessions.clear();
  }
}
