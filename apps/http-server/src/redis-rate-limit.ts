import type { RateLimiter } from "@toolshed/http";
import { perLimitRateLimiter } from "@toolshed/http/internal";
import type { Logger } from "@toolshed/schema";
import { RateLimiterMemory, RateLimiterRedis } from "rate-limiter-flexible";

export interface RedisRateLimiterOptions {
  /** redis:// or rediss:// URL. */
  url: string;
  /** Requests per key per minute (0: only tokens with their own limit are limited). */
  perMinute: number;
  /** Prefix of the counters' keys (default `toolshed:rl`); instances that share a budget share it. */
  keyPrefix?: string;
  logger?: Logger;
  /** How long start-up waits for the first connection before serving anyway (default 3000 ms). */
  connectWaitMs?: number;
}

export const DEFAULT_REDIS_PREFIX = "toolshed:rl";

/**
 * The rate limit counted in Redis, so a client's budget is shared by every instance that uses
 * the same Redis and prefix. Redis down fails open to a per-instance limit: each instance then
 * counts in its own memory (rate-limiter-flexible's insurance limiter), so calls keep working
 * and a client gets at most one budget per instance until Redis is back.
 */
export async function createRedisRateLimiter(options: RedisRateLimiterOptions): Promise<RateLimiter> {
  // Loaded only when a Redis URL is given.
  const { Redis } = await import("ioredis");
  const logger = options.logger;
  const prefix = options.keyPrefix ?? DEFAULT_REDIS_PREFIX;
  const redis = new Redis(options.url, {
    // Fail fast into the insurance limiter instead of queueing requests behind a dead connection.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    commandTimeout: 1_000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  let healthy = true;
  // Without a listener ioredis prints every failed reconnect; one warning per outage is enough.
  redis.on("error", (error: Error) => {
    if (!healthy) return;
    healthy = false;
    logger?.warn({ err: error.message }, "Redis is unreachable: rate limits are counted per instance until it is back");
  });
  redis.on("ready", () => {
    if (!healthy) logger?.info({}, "Redis is back: rate limits are shared again");
    healthy = true;
  });
  const connectWaitMs = options.connectWaitMs ?? 3_000;
  if (redis.status !== "ready") {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, connectWaitMs);
      redis.once("ready", () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
  return perLimitRateLimiter(
    options.perMinute,
    (points) =>
      new RateLimiterRedis({
        storeClient: redis,
        keyPrefix: `${prefix}:${points}`,
        points,
        duration: 60,
        rejectIfRedisNotReady: true,
        insuranceLimiter: new RateLimiterMemory({ keyPrefix: `${prefix}:${points}:local`, points, duration: 60 }),
      }),
    async () => {
      redis.disconnect();
    },
  );
}
