import type { RateLimiter } from "@toolshed/http";
import type { Logger } from "@toolshed/schema";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";

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
  /** How long one call waits for Redis before it counts as a failure (default 1000 ms). */
  commandTimeoutMs?: number;
  /** Consecutive failures (timeouts, errors, OOM replies) that open the breaker (default 3). */
  breakerFailures?: number;
  /** How long an open breaker counts per instance before one call probes Redis again (default 30 s). */
  breakerCoolDownMs?: number;
}

export const DEFAULT_REDIS_PREFIX = "toolshed:rl";
export const DEFAULT_REDIS_COMMAND_TIMEOUT_MS = 1_000;
export const DEFAULT_REDIS_BREAKER_FAILURES = 3;
export const DEFAULT_REDIS_BREAKER_COOL_DOWN_MS = 30_000;

const FALLBACK = "rate limits are counted per instance until it is back";

/** Why Redis failed, for the one warning an outage gets. */
function causeOf(error: unknown, timeoutMs: number, lastConnectionError: string | undefined) {
  const message = error instanceof Error ? error.message : String(error);
  if (message.startsWith("OOM")) return { cause: "oom", err: message, text: "Redis is out of memory (OOM)" };
  if (/timed out/i.test(message)) {
    return { cause: "timeout", err: message, text: `Redis is not answering (no reply within ${timeoutMs} ms)` };
  }
  if (/not ready|connection|ECONN|closed/i.test(message)) {
    return { cause: "unreachable", err: lastConnectionError ?? message, text: "Redis is unreachable" };
  }
  return { cause: "error", err: message, text: "Redis fails" };
}

/**
 * A circuit breaker in front of Redis. Closed: every call asks Redis. After `failures` consecutive
 * failures it opens: calls count in memory without asking Redis, so a frozen Redis costs a few
 * timeouts instead of one per call. After the cool-down one call probes Redis (half-open); its
 * success closes the breaker, its failure opens it again, quietly: one warning per outage.
 */
class Breaker {
  #state: "closed" | "open" | "half-open" = "closed";
  #failures = 0;
  #openedAt = 0;
  #warned = false;

  constructor(
    private readonly threshold: number,
    private readonly coolDownMs: number,
    private readonly logger: Logger | undefined,
  ) {}

  /** Whether this call asks Redis; a call that is given "probe" must report back. */
  ask(): "closed" | "probe" | false {
    if (this.#state === "closed") return "closed";
    if (this.#state === "open" && performance.now() - this.#openedAt >= this.coolDownMs) {
      this.#state = "half-open";
      return "probe";
    }
    return false;
  }

  /** Redis is reachable again: the next call probes without waiting for the cool-down. */
  reconnected(): void {
    if (this.#state === "open") this.#openedAt = -Infinity;
  }

  succeeded(asked: "closed" | "probe"): void {
    if (asked === "closed" && this.#state === "closed") {
      this.#failures = 0;
      return;
    }
    if (asked !== "probe") return;
    this.#state = "closed";
    this.#failures = 0;
    if (this.#warned) this.logger?.info({}, "Redis is back: rate limits are shared again");
    this.#warned = false;
  }

  failed(asked: "closed" | "probe", why: { cause: string; err: string; text: string }): void {
    if (asked === "probe") {
      this.#open();
      return;
    }
    // A call that was waiting when the breaker opened adds nothing.
    if (this.#state !== "closed") return;
    this.#failures++;
    if (this.#failures < this.threshold) return;
    this.#open();
    if (this.#warned) return;
    this.#warned = true;
    this.logger?.warn(
      { cause: why.cause, err: why.err, failures: this.#failures, coolDownMs: this.coolDownMs },
      `${why.text}: ${FALLBACK}`,
    );
  }

  #open(): void {
    this.#state = "open";
    this.#openedAt = performance.now();
  }
}

/**
 * The rate limit counted in Redis, so a client's budget is shared by every instance that uses
 * the same Redis and prefix. When Redis fails (refused, no reply within the command timeout, an
 * error reply such as OOM) each call falls back to a per-instance limit in this process's memory,
 * so calls keep working and a client gets at most one budget per instance until Redis is back;
 * a breaker stops asking a failing Redis for a while (see `Breaker`).
 */
export async function createRedisRateLimiter(options: RedisRateLimiterOptions): Promise<RateLimiter> {
  // Loaded only when a Redis URL is given.
  const { Redis } = await import("ioredis");
  const logger = options.logger;
  const prefix = options.keyPrefix ?? DEFAULT_REDIS_PREFIX;
  const timeoutMs = options.commandTimeoutMs ?? DEFAULT_REDIS_COMMAND_TIMEOUT_MS;
  const breaker = new Breaker(
    options.breakerFailures ?? DEFAULT_REDIS_BREAKER_FAILURES,
    options.breakerCoolDownMs ?? DEFAULT_REDIS_BREAKER_COOL_DOWN_MS,
    logger,
  );
  const redis = new Redis(options.url, {
    // Fail fast into the per-instance limit instead of queueing requests behind a dead connection.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    commandTimeout: timeoutMs,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  let lastConnectionError: string | undefined;
  // Without a listener ioredis prints every failed reconnect; the breaker's warning names the cause.
  redis.on("error", (error: Error) => {
    lastConnectionError = error.message;
  });
  redis.on("ready", () => breaker.reconnected());
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

  const limiters = new Map<number, { shared: RateLimiterRedis; local: RateLimiterMemory }>();
  const limitersFor = (points: number) => {
    let pair = limiters.get(points);
    if (!pair) {
      pair = {
        shared: new RateLimiterRedis({
          storeClient: redis,
          keyPrefix: `${prefix}:${points}`,
          points,
          duration: 60,
          rejectIfRedisNotReady: true,
        }),
        local: new RateLimiterMemory({ keyPrefix: `${prefix}:${points}:local`, points, duration: 60 }),
      };
      limiters.set(points, pair);
    }
    return pair;
  };

  return {
    async take(key, perMinute = options.perMinute, points = 1) {
      if (perMinute <= 0) return { ok: true };
      const { shared, local } = limitersFor(perMinute);
      const asked = breaker.ask();
      if (asked) {
        try {
          await shared.consume(key, points);
          breaker.succeeded(asked);
          return { ok: true };
        } catch (error) {
          if (error instanceof RateLimiterRes) {
            breaker.succeeded(asked);
            return refusal(shared, key, points, error);
          }
          // Redis failed: this call counts in memory, as every call does while the breaker is open.
          breaker.failed(asked, causeOf(error, timeoutMs, lastConnectionError));
        }
      }
      try {
        await local.consume(key, points);
        return { ok: true };
      } catch (refused) {
        if (!(refused instanceof RateLimiterRes)) throw refused;
        return refusal(local, key, points, refused);
      }
    },
    async close() {
      redis.disconnect();
    },
  };
}

async function refusal(
  limiter: RateLimiterRedis | RateLimiterMemory,
  key: string,
  points: number,
  refused: RateLimiterRes,
): Promise<{ ok: false; retryAfterSeconds: number }> {
  // A refused batch runs nothing, so it takes nothing beyond the POST already counted.
  if (points > 1) await limiter.reward(key, points).catch(() => {});
  return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(refused.msBeforeNext / 1000)) };
}
