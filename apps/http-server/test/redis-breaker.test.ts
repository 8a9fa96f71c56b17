import { Writable } from "node:stream";
import { createHttpApp, type HttpApp, type RateLimiter } from "@toolshed/http";
import { createLogger } from "@toolshed/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisRateLimiter } from "../src/redis-rate-limit.js";
import { type RedisProxy, startRedisProxy } from "./redis-proxy.js";
import { redisReachable, TEST_REDIS_URL, testKeyPrefix } from "./services.js";

const reachable = await redisReachable();
if (!reachable) process.stderr.write(`Redis breaker tests SKIPPED: ${TEST_REDIS_URL} is not reachable\n`);

const FREE = "free-token-0123456789abcdef";
const LIMITED = "limited-token-0123456789abcdef";
const SHARED = "shared-token-0123456789abcdef";
const tokens = [
  { id: "free", token: FREE, scopes: ["tools:read" as const] },
  { id: "limited", token: LIMITED, scopes: ["tools:read" as const], rateLimit: 4 },
  { id: "shared", token: SHARED, scopes: ["tools:read" as const], rateLimit: 4 },
];

const COMMAND_TIMEOUT_MS = 200;
const COOL_DOWN_MS = 1_500;

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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `count` instances behind the proxy, each with its own limiter and breaker, logging to one place. */
async function instances(proxy: RedisProxy, prefix: string, count: number) {
  const lines: { level: number; msg: string; cause?: string }[] = [];
  const log = new Writable({
    write(chunk, _encoding, done) {
      for (const line of chunk.toString().split("\n")) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  const logger = createLogger({ level: "info", destination: log });
  const limiters: RateLimiter[] = [];
  const apps: HttpApp[] = [];
  for (let i = 0; i < count; i++) {
    const rateLimiter = await createRedisRateLimiter({
      url: proxy.url,
      perMinute: 1000,
      keyPrefix: prefix,
      logger,
      connectWaitMs: 2_000,
      commandTimeoutMs: COMMAND_TIMEOUT_MS,
      breakerCoolDownMs: COOL_DOWN_MS,
    });
    limiters.push(rateLimiter);
    apps.push(createHttpApp({ packs: [], tokens, rateLimiter, logger }));
  }
  const close = async () => {
    for (const app of apps) await app.close({ graceMs: 0 });
    for (const limiter of limiters) await limiter.close();
  };
  const messages = (level: number) => lines.filter((l) => l.level === level).map((l) => l.msg);
  return { apps, close, warnings: () => messages(40), infos: () => messages(30) };
}

async function timed(app: HttpApp, token: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const response = await ping(app, token);
  return { status: response.status, ms: performance.now() - started };
}

describe.skipIf(!reachable)("Redis rate limit breaker", () => {
  const keys = testKeyPrefix();
  let proxy: RedisProxy;
  beforeAll(async () => {
    proxy = await startRedisProxy(TEST_REDIS_URL);
  });
  afterAll(async () => {
    await proxy?.close();
    await keys.cleanUp();
  });

  it("a frozen Redis costs 3 timeouts, not one per call: then one warning, per-instance limits, and recovery by itself", async () => {
    proxy.forward();
    const { apps, close, warnings, infos } = await instances(proxy, `${keys.prefix}_frozen`, 1);
    const app = apps[0] as HttpApp;
    try {
      expect((await ping(app, FREE)).status).toBe(200);
      proxy.pause();
      proxy.resetCount();
      const calls: { status: number; ms: number }[] = [];
      for (let i = 0; i < 10; i++) calls.push(await timed(app, FREE));
      expect(calls.map((c) => c.status)).toEqual(Array(10).fill(200));
      // The first three wait for the timeout; once the breaker is open Redis is not asked.
      for (const c of calls.slice(0, 3)) expect(c.ms).toBeGreaterThanOrEqual(COMMAND_TIMEOUT_MS - 20);
      // Below the timeout (not a tight figure: a loaded CI machine is slow too), and Redis not asked.
      for (const c of calls.slice(3)) expect(c.ms).toBeLessThan(COMMAND_TIMEOUT_MS);
      expect(proxy.commands).toBe(3);
      expect(warnings()).toEqual([
        `Redis is not answering (no reply within ${COMMAND_TIMEOUT_MS} ms): rate limits are counted per instance until it is back`,
      ]);
      // Per-instance limits meanwhile: 4 per minute on this instance.
      const limited: number[] = [];
      for (let i = 0; i < 6; i++) limited.push((await ping(app, LIMITED)).status);
      expect(limited).toEqual([200, 200, 200, 200, 429, 429]);

      proxy.forward();
      await sleep(COOL_DOWN_MS + 100);
      proxy.resetCount();
      expect((await ping(app, FREE)).status).toBe(200);
      expect((await ping(app, FREE)).status).toBe(200);
      // The probe and the call after it were counted in Redis again.
      expect(proxy.commands).toBe(2);
      expect(infos()).toContain("Redis is back: rate limits are shared again");
      expect(warnings()).toHaveLength(1);
    } finally {
      proxy.forward();
      await close();
    }
  }, 20_000);

  it("an out-of-memory Redis: one warning naming OOM per instance, per-instance limits, a failed probe stays quiet", async () => {
    proxy.forward();
    const { apps, close, warnings, infos } = await instances(proxy, `${keys.prefix}_oom`, 2);
    try {
      for (const app of apps) expect((await ping(app, FREE)).status).toBe(200);
      proxy.oom();
      proxy.resetCount();
      const seen: number[] = [];
      for (let i = 0; i < 12; i++) seen.push((await ping(apps[i % 2] as HttpApp, LIMITED)).status);
      // The same fallback as a dead Redis: each instance counts alone (4 each), never a 5xx.
      expect(seen.filter((s) => s === 200)).toHaveLength(8);
      expect(seen.filter((s) => s !== 200 && s !== 429)).toEqual([]);
      // Three failures per instance open its breaker; after that Redis is not asked.
      expect(proxy.commands).toBe(6);
      const oom = "Redis is out of memory (OOM): rate limits are counted per instance until it is back";
      expect(warnings()).toEqual([oom, oom]);

      // After the cool-down one probe per instance; it fails, the breaker opens again without a new warning.
      await sleep(COOL_DOWN_MS + 100);
      proxy.resetCount();
      for (let i = 0; i < 6; i++) expect((await ping(apps[i % 2] as HttpApp, FREE)).status).toBe(200);
      expect(proxy.commands).toBe(2);
      expect(warnings()).toHaveLength(2);

      // Redis has memory again: the next probes close the breakers and the budget is shared again.
      proxy.forward();
      await sleep(COOL_DOWN_MS + 100);
      const shared: number[] = [];
      for (let i = 0; i < 10; i++) shared.push((await ping(apps[i % 2] as HttpApp, SHARED)).status);
      expect(shared.filter((s) => s === 200)).toHaveLength(4);
      expect(infos().filter((m) => m === "Redis is back: rate limits are shared again")).toHaveLength(2);
    } finally {
      proxy.forward();
      await close();
    }
  }, 20_000);
});
