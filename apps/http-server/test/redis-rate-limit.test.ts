import { Writable } from "node:stream";
import { createHttpApp, type HttpApp, type RateLimiter } from "@toolshed/http";
import { createLogger } from "@toolshed/server";
import { afterAll, describe, expect, it } from "vitest";
import { createRedisRateLimiter } from "../src/redis-rate-limit.js";
import { redisReachable, TEST_REDIS_URL, testKeyPrefix } from "./services.js";

const reachable = await redisReachable();
if (!reachable) process.stderr.write(`Redis rate limit tests SKIPPED: ${TEST_REDIS_URL} is not reachable\n`);

const LIMITED = "limited-token-0123456789abcdef";
const FREE = "free-token-0123456789abcdef";
const tokens = [
  { id: "limited", token: LIMITED, scopes: ["tools:read" as const], rateLimit: 4 },
  { id: "free", token: FREE, scopes: ["tools:read" as const] },
];

const ping = (app: HttpApp, token: string) =>
  app.fetch(
    new Request("http://127.0.0.1/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    }),
  );

/** Two app instances, each with its own limiter, as two server processes would have. */
async function twoInstances(url: string, prefix: string, log?: Writable) {
  const logger = createLogger({ level: log ? "info" : "silent", ...(log ? { destination: log } : {}) });
  const limiters: RateLimiter[] = [];
  const apps: HttpApp[] = [];
  for (let i = 0; i < 2; i++) {
    const rateLimiter = await createRedisRateLimiter({
      url,
      perMinute: 1000,
      keyPrefix: prefix,
      logger,
      connectWaitMs: 500,
    });
    limiters.push(rateLimiter);
    apps.push(createHttpApp({ packs: [], tokens, rateLimiter, logger }));
  }
  const close = async () => {
    for (const app of apps) await app.close({ graceMs: 0 });
    for (const limiter of limiters) await limiter.close();
  };
  return { apps, close };
}

async function statuses(apps: HttpApp[], token: string, calls: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < calls; i++) out.push((await ping(apps[i % apps.length] as HttpApp, token)).status);
  return out;
}

describe.skipIf(!reachable)("rate limit in Redis", () => {
  const keys = testKeyPrefix();
  afterAll(() => keys.cleanUp());

  it("one budget per token across instances: 4 per minute means 4 in total, then 429 with Retry-After", async () => {
    const { apps, close } = await twoInstances(TEST_REDIS_URL, keys.prefix);
    try {
      const seen = await statuses(apps, LIMITED, 10);
      expect(seen.filter((s) => s === 200)).toHaveLength(4);
      expect(seen.slice(4).every((s) => s === 429)).toBe(true);
      const refused = await ping(apps[1] as HttpApp, LIMITED);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      // Another token keeps its own (default) budget.
      expect(await statuses(apps, FREE, 6)).toEqual([200, 200, 200, 200, 200, 200]);
    } finally {
      await close();
    }
  });
});

describe("rate limit when Redis is down", () => {
  it("fails open to a per-instance limit, logs a warning, and keeps serving", async () => {
    let logged = "";
    const log = new Writable({
      write(chunk, _encoding, done) {
        logged += chunk.toString();
        done();
      },
    });
    // Nothing listens on port 1.
    const { apps, close } = await twoInstances("redis://127.0.0.1:1", "toolshed_down", log);
    try {
      const seen = await statuses(apps, LIMITED, 12);
      // Each instance counts alone: 4 per instance, 8 in all, never a 5xx.
      expect(seen.filter((s) => s === 200)).toHaveLength(8);
      expect(seen.filter((s) => s !== 200 && s !== 429)).toEqual([]);
      expect(logged).toContain("Redis is unreachable: rate limits are counted per instance until it is back");
    } finally {
      await close();
    }
  });
});
