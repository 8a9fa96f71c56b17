export { createHttpApp, type HttpApp, type HttpAppOptions } from "./app.js";
export { type HttpServerConfig, parseHttpArgs, usageText } from "./args.js";
export {
  type Authenticator,
  type AuthOptions,
  type AuthOutcome,
  createAuthenticator,
  type JwtOptions,
} from "./auth.js";
export { type CallContext, createDispatcher } from "./dispatcher.js";
export { HttpConfigError } from "./http-errors.js";
export { createRateLimiter, type RateLimiter, type RateLimitOutcome } from "./rate-limit.js";
export { createRedisChangeBus, DEFAULT_CHANGES_CHANNEL, type RedisChangeBusOptions } from "./redis-changes.js";
export { createRedisRateLimiter, DEFAULT_REDIS_PREFIX, type RedisRateLimiterOptions } from "./redis-rate-limit.js";
export { type RunningHttpServer, type StartHttpServerOptions, startHttpServer } from "./serve.js";
export { parseTokenList, parseTokensFile, SCOPES, type Scope, type StaticToken } from "./tokens.js";
export { VERSION } from "./version.js";
