import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";

/** Where tests find Redis: TOOLSHED_TEST_REDIS_URL, else the local default. */
export const TEST_REDIS_URL = process.env.TOOLSHED_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

const inCi = () => process.env.CI === "true" || process.env.CI === "1";

/**
 * Whether Redis answers PING. Tests skip with a clear message when it does not, except under
 * CI=true, where an unreachable Redis fails the run (as pgReachable does for PostgreSQL).
 */
export async function redisReachable(url: string = TEST_REDIS_URL): Promise<boolean> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on("error", () => {});
  try {
    await redis.connect();
    await redis.ping();
    return true;
  } catch (error) {
    if (inCi()) throw new Error(`Redis is required in CI but ${url} did not answer: ${(error as Error).message}`);
    return false;
  } finally {
    redis.disconnect();
  }
}

/** A key prefix no other run uses, and a way to delete every key under it afterwards. */
export function testKeyPrefix(url: string = TEST_REDIS_URL): { prefix: string; cleanUp(): Promise<void> } {
  const prefix = `toolshed_test_${randomBytes(6).toString("hex")}`;
  return {
    prefix,
    async cleanUp() {
      const redis = new Redis(url, { maxRetriesPerRequest: 1 });
      try {
        const keys = await redis.keys(`${prefix}*`);
        if (keys.length > 0) await redis.del(...keys);
      } finally {
        redis.disconnect();
      }
    },
  };
}
