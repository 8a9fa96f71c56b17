/**
 * @toolshed/http: Streamable HTTP for Toolshed servers, as a library.
 *
 * This file defines the complete public surface of the package. Any new export added here
 * becomes public API. Use named exports, not wildcards. What the Toolshed apps need but users
 * should not build on lives in `@toolshed/http/internal`.
 */

export type { AccessTarget, CanAccess } from "@toolshed/server";
export { createHttpApp, type HttpApp, type HttpAppOptions } from "./app.js";
export type { Authenticator, AuthOptions, AuthOutcome, JwtOptions } from "./auth.js";
export type { CorsOptions } from "./cors.js";
export type { FetchEnv } from "./fetch-handler.js";
export { HttpConfigError } from "./http-errors.js";
export type { IntrospectionOptions } from "./introspection.js";
export type { JwksOptions } from "./jwks.js";
export type { ReadinessReport } from "./pipeline.js";
export { createRateLimiter, type RateLimiter, type RateLimitOutcome } from "./rate-limit.js";
export type { RequestSummary } from "./request-log.js";
export { HttpMetric, type RefusalReason } from "./telemetry.js";
export { parseTokenList, parseTokensFile, SCOPES, type Scope, type StaticToken } from "./tokens.js";
export { VERSION } from "./version.js";
