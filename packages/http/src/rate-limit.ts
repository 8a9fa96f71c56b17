import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";

export type RateLimitOutcome = { ok: true } | { ok: false; retryAfterSeconds: number };

export interface RateLimiter {
  /**
   * Takes `points` calls (default 1) from the key's allowance of `perMinute` (default: the
   * limiter's own); when not that many are left, says how long to wait. A limit of 0 never refuses.
   */
  take(key: string, perMinute?: number, points?: number): Promise<RateLimitOutcome>;
  /** Releases connections (the Redis client); the memory limiter has none. */
  close(): Promise<void>;
}

/**
 * A limiter per distinct per-minute limit (the default and each token's own), made on first
 * use by `make`, so one interface serves memory and Redis alike.
 */
export function perLimitRateLimiter(
  defaultPerMinute: number,
  make: (perMinute: number) => RateLimiterAbstract,
  close: () => Promise<void> = async () => {},
): RateLimiter {
  const limiters = new Map<number, RateLimiterAbstract>();
  return {
    async take(key, perMinute = defaultPerMinute, points = 1) {
      if (perMinute <= 0) return { ok: true };
      let limiter = limiters.get(perMinute);
      if (!limiter) {
        limiter = make(perMinute);
        limiters.set(perMinute, limiter);
      }
      try {
        await limiter.consume(key, points);
        return { ok: true };
      } catch (rejected) {
        if (!(rejected instanceof RateLimiterRes)) throw rejected;
        // A refused batch runs nothing, so it takes nothing beyond the POST already counted.
        if (points > 1) await limiter.reward(key, points).catch(() => {});
        return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(rejected.msBeforeNext / 1000)) };
      }
    },
    close,
  };
}

/** `perMinute` requests per key per minute in this process's memory (one instance); 0 turns it off. */
export function createRateLimiter(perMinute: number): RateLimiter {
  return perLimitRateLimiter(perMinute, (points) => new RateLimiterMemory({ points, duration: 60 }));
}
