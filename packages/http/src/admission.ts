import type { AuthInfo } from "@toolshed/schema";
import type { Authenticator } from "./auth.js";
import type { Exchange } from "./exchange.js";
import type { OriginPolicy } from "./guards.js";
import { checkHostAndOrigin, tokenInQuery } from "./guards.js";
import { HttpErrorCode, jsonRpcErrorResponse } from "./http-errors.js";
import type { RateLimiter, RateLimitOutcome } from "./rate-limit.js";
import type { RequestRecord } from "./request-context.js";
import { countRefused, type RefusalReason } from "./telemetry.js";
import { SCOPES } from "./tokens.js";
import { wwwAuthenticate } from "./well-known.js";

export interface AdmissionOptions {
  policy: OriginPolicy;
  auth: Authenticator | undefined;
  limiter: RateLimiter | undefined;
  /** Public base URL for WWW-Authenticate, from the configured one or the request's URL. */
  baseUrl: (requestUrl: string) => string;
  isClosing: () => boolean;
}

export type Admission =
  | {
      ok: true;
      authInfo?: AuthInfo;
      /** The credential's owner key: one per caller, whatever its label (see auth.ts). */
      owner?: string;
      /** Whose rate allowance and session quota this request counts against: the owner, or the address without auth. */
      client: string;
      /** Charges more calls to the same allowance (a batch counts every request); a 429 when refused. */
      charge?: Charge;
    }
  | { ok: false; response: Response };

/** Takes `calls` more from the caller's rate allowance; the 429 answer when there are not enough left. */
export type Charge = (calls: number) => Promise<Response | undefined>;

// A Host header of this form always makes a valid URL; anything else is parsed to be sure.
const PLAIN_HOST = /^[A-Za-z0-9.-]{1,253}(:\d{1,5})?$/;

const tooMany = (retryAfterSeconds: number) =>
  jsonRpcErrorResponse(
    429,
    HttpErrorCode.Transport,
    `Too Many Requests: rate limit exceeded; retry after ${retryAfterSeconds} s`,
    { "Retry-After": String(retryAfterSeconds) },
  );

function refuse(reason: RefusalReason, response: Response): Admission {
  countRefused(reason);
  return { ok: false, response };
}

/** The checks in front of /mcp, cheapest first: shutdown, Host and Origin, tokens in the URL, auth, rate limit. */
export async function admit(head: Exchange, record: RequestRecord, o: AdmissionOptions): Promise<Admission> {
  if (o.isClosing()) {
    const response = jsonRpcErrorResponse(
      503,
      HttpErrorCode.Transport,
      "Service Unavailable: the server is shutting down",
      { "Retry-After": "5", Connection: "close" },
    );
    return refuse("shutting_down", response);
  }
  // A URL built from the Host header has nothing to compare with it: skip parsing it twice.
  const builtFromHost = head.targetIsPath && head.headers.get("host") !== null;
  const foreign = checkHostAndOrigin(head.headers, o.policy, builtFromHost ? undefined : head.url);
  if (foreign) return refuse("host", foreign);
  // node:http passes any Host on; the answers below build URLs from it.
  if (!(builtFromHost && PLAIN_HOST.test(head.headers.get("host") as string)) && !URL.canParse(head.url)) {
    const description = "Bad Request: the Host header is not a host name (name or name:port)";
    return refuse("host", jsonRpcErrorResponse(400, HttpErrorCode.Transport, description));
  }
  const inQuery = tokenInQuery(head.query);
  if (inQuery !== undefined) {
    const description = `Bad Request: tokens are not accepted in the URL (found "${inQuery}"); send the header Authorization: Bearer <token>`;
    const response = jsonRpcErrorResponse(400, HttpErrorCode.Transport, description, {
      "WWW-Authenticate": wwwAuthenticate(o.baseUrl(head.url), "invalid_request", description),
    });
    return refuse("token_in_url", response);
  }
  const address = head.address ?? "unknown";
  let authInfo: AuthInfo | undefined;
  let owner: string | undefined;
  let ownLimit: number | undefined;
  if (o.auth) {
    const { limiter } = o;
    // A token the introspection endpoint must be asked about costs the address one request of its
    // allowance first: junk tokens cannot make this server flood the authorization server.
    let charged: RateLimitOutcome | undefined;
    const remote = limiter
      ? async () => {
          charged = await limiter.take(`addr:${address}`);
          return charged.ok;
        }
      : undefined;
    const outcome = await o.auth.authenticate(head.headers.get("authorization"), remote ? { remote } : undefined);
    if (!outcome.ok) {
      // Failed attempts count against the address, so guessing tokens is rate limited too.
      const limited = charged ?? (await limiter?.take(`addr:${address}`));
      if (limited && !limited.ok) return refuse("rate_limited", tooMany(limited.retryAfterSeconds));
      const headers: Record<string, string> = {};
      if (outcome.status !== 503) {
        const scope = outcome.error === "insufficient_scope" ? SCOPES.join(" ") : undefined;
        headers["WWW-Authenticate"] = wwwAuthenticate(o.baseUrl(head.url), outcome.error, outcome.description, scope);
      } else headers["Retry-After"] = String(outcome.retryAfterSeconds ?? 30);
      const response = jsonRpcErrorResponse(outcome.status, HttpErrorCode.Transport, outcome.description, headers);
      const reason =
        outcome.status === 401 ? "unauthorized" : outcome.status === 403 ? "forbidden" : "auth_unavailable";
      return refuse(reason, response);
    }
    ({ authInfo, owner } = outcome);
    ownLimit = outcome.rateLimit;
    record.tokenId = outcome.label;
  }
  const key = owner ? `token:${owner}` : `addr:${address}`;
  const admitted: Admission & { ok: true } = { ok: true, client: key };
  if (authInfo) admitted.authInfo = authInfo;
  if (owner) admitted.owner = owner;
  const { limiter } = o;
  const limited = await limiter?.take(key, ownLimit);
  if (limited && !limited.ok) return refuse("rate_limited", tooMany(limited.retryAfterSeconds));
  if (limiter) {
    admitted.charge = async (calls) => {
      const more = await limiter.take(key, ownLimit, calls);
      if (more.ok) return undefined;
      countRefused("rate_limited");
      return tooMany(more.retryAfterSeconds);
    };
  }
  return admitted;
}
