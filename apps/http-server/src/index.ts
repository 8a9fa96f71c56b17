/**
 * @toolshed/http-server: the toolshed-http server (the three packs over Streamable HTTP) as a
 * function, for tests and launchers. To serve your own packs over HTTP, use @toolshed/http.
 *
 * This file defines the complete public surface of the package. Any new export added here
 * becomes public API. Use named exports, not wildcards.
 */
// startHttpServer throws it for a flag, a variable or a database that cannot work.
export { HttpConfigError } from "@toolshed/http";
export { type HttpServerConfig, parseHttpArgs, usageText } from "./args.js";
export { createRedisChangeBus, DEFAULT_CHANGES_CHANNEL, type RedisChangeBusOptions } from "./redis-changes.js";
export { createRedisRateLimiter, DEFAULT_REDIS_PREFIX, type RedisRateLimiterOptions } from "./redis-rate-limit.js";
export { type RunningHttpServer, type StartHttpServerOptions, startHttpServer } from "./serve.js";
export { VERSION } from "./version.js";
