import type { AuthInfo, Logger } from "@toolshed/schema";
import type { Context } from "hono";
import type { Authenticator } from "./auth.js";
import { whenBodyDone } from "./body-done.js";
import type { Dispatch } from "./dispatcher.js";
import type { OriginPolicy } from "./guards.js";
import { checkHostAndOrigin } from "./guards.js";
import { HttpErrorCode, jsonRpcErrorResponse } from "./http-errors.js";
import type { InFlight } from "./in-flight.js";
import type { RateLimiter } from "./rate-limit.js";
import { currentRequest } from "./request-context.js";
import { clientAddress } from "./request-log.js";
import type { Sessions } from "./sessions.js";
import { handleStatelessPost } from "./stateless.js";
import { SCOPES } from "./tokens.js";
import { wwwAuthenticate } from "./well-known.js";
import { methodNotAllowed } from "./wire.js";

export interface McpRouteOptions {
  policy: OriginPolicy;
  auth: Authenticator | undefined;
  limiter: RateLimiter | undefined;
  dispatch: Dispatch;
  sessions: Sessions | undefined;
  inFlight: InFlight;
  maxBodyBytes: number;
  baseUrl: (c: Context) => string;
  isClosing: () => boolean;
  logger: Logger;
}

// Names a token could hide under in a URL; URLs end up in logs, proxies and browser history.
const QUERY_TOKEN_NAMES = ["access_token", "token", "bearer", "api_key"];

/** The checks in front of /mcp, cheapest first, then the stateless or sessions handler. */
export function mcpRoute(o: McpRouteOptions) {
  const tooMany = (retryAfterSeconds: number) =>
    jsonRpcErrorResponse(
      429,
      HttpErrorCode.Transport,
      `Too Many Requests: rate limit exceeded; retry after ${retryAfterSeconds} s`,
      { "Retry-After": String(retryAfterSeconds) },
    );

  return async (c: Context): Promise<Response> => {
    const request = c.req.raw;
    if (o.isClosing()) {
      return jsonRpcErrorResponse(503, HttpErrorCode.Transport, "Service Unavailable: the server is shutting down", {
        "Retry-After": "5",
        Connection: "close",
      });
    }
    const foreign = checkHostAndOrigin(request, o.policy);
    if (foreign) return foreign;
    const params = new URL(request.url).searchParams;
    const inQuery = QUERY_TOKEN_NAMES.find((name) => params.has(name));
    if (inQuery) {
      const description = `Bad Request: tokens are not accepted in the URL (found "${inQuery}"); send the header Authorization: Bearer <token>`;
      return jsonRpcErrorResponse(400, HttpErrorCode.Transport, description, {
        "WWW-Authenticate": wwwAuthenticate(o.baseUrl(c), "invalid_request", description),
      });
    }
    const address = clientAddress(c.env) ?? "unknown";
    let authInfo: AuthInfo | undefined;
    let owner: string | undefined;
    let ownLimit: number | undefined;
    if (o.auth) {
      const outcome = await o.auth.authenticate(request.headers.get("authorization"));
      if (!outcome.ok) {
        // Failed attempts count against the address, so guessing tokens is rate limited too.
        const limited = await o.limiter?.take(`addr:${address}`);
        if (limited && !limited.ok) return tooMany(limited.retryAfterSeconds);
        const headers: Record<string, string> = {};
        if (outcome.status !== 503) {
          const scope = outcome.error === "insufficient_scope" ? SCOPES.join(" ") : undefined;
          headers["WWW-Authenticate"] = wwwAuthenticate(o.baseUrl(c), outcome.error, outcome.description, scope);
        } else headers["Retry-After"] = "30";
        return jsonRpcErrorResponse(outcome.status, HttpErrorCode.Transport, outcome.description, headers);
      }
      authInfo = outcome.authInfo;
      owner = outcome.label;
      ownLimit = outcome.rateLimit;
      const record = currentRequest();
      if (record) record.tokenId = outcome.label;
    }
    const limited = await o.limiter?.take(owner ? `token:${owner}` : `addr:${address}`, ownLimit);
    if (limited && !limited.ok) return tooMany(limited.retryAfterSeconds);

    if (o.sessions) {
      // Open GET streams are not waited for at shutdown; POST and DELETE are.
      const end = request.method === "GET" ? () => {} : o.inFlight.begin();
      try {
        return whenBodyDone(await o.sessions.handle(request, authInfo, owner), end);
      } catch (error) {
        end();
        throw error;
      }
    }
    if (request.method !== "POST") return methodNotAllowed("POST");
    const end = o.inFlight.begin();
    try {
      const response = await handleStatelessPost(request, authInfo, {
        dispatch: o.dispatch,
        maxBodyBytes: o.maxBodyBytes,
        stopSignal: o.inFlight.signal,
      });
      return whenBodyDone(response, end);
    } catch (error) {
      end();
      throw error;
    }
  };
}
