import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";

export interface RateLimiter {
  /** Takes one request from the key's allowance; when none is left, says how long to wait. */
  take(key: string): Promise<{ ok: true } | { ok: false; retryAfterSeconds: number }>;
}

/**
 * `perMinute` requests per key per minute, in memory (one instance); rate-limiter-flexible has
 * Redis-backed limiters with the same interface for several instances. 0 turns it off.
 */
export function createRateLimiter(perMinute: number): RateLimiter | undefined {
  if (perMinute <= 0) return undefined;
  const limiter = new RateLimiterMemory({ points: perMinute, duration: 60 });
  return {
    async take(key) {
      try {
        await limiter.consume(key, 1);
        return { ok: true };
      } catch (rejected) {
        if (!(rejected instanceof RateLimiterRes)) throw rejected;
        return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(rejected.msBeforeNext / 1000)) };
      }
    },
  };
}
