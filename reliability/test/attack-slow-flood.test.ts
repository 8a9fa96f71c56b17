import type { HttpProcess } from "@toolshed/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, errorMessage, type HttpAnswer, post, slowClient } from "./attack-support/http.js";
import { legitimateCall } from "./attack-support/legit.js";
import { startHttpServer, stopAll } from "./attack-support/server.js";

// Slow clients that never finish their headers (slowloris) and floods past the rate limit.
const LIMIT = 60;
const FLOODER = "flood-token-0123456789abcdef";
const LEGIT_SLOW = "legit-slow-token-0123456789abcdef";
const LEGIT_FLOOD = "legit-flood-token-0123456789abcdef";
const LEGIT_GUESS = "legit-guess-token-0123456789abcdef";

let server: HttpProcess;

beforeAll(async () => {
  const tokens = [FLOODER, LEGIT_SLOW, LEGIT_FLOOD, LEGIT_GUESS].map((t) => `${t}:tools:read tools:write`).join(";");
  server = await startHttpServer(["--demo", "--request-timeout", "2s", "--rate-limit", String(LIMIT)], {
    env: { TOOLSHED_TOKENS: tokens },
  });
});
afterAll(stopAll);

const ping = { jsonrpc: "2.0", id: 1, method: "ping" };

describe("slow clients that never finish their headers", () => {
  it("150 of them (silent, half a request line, one header every 250 ms) get 408 and are cut off; others are served meanwhile", async () => {
    const modes = ["silent", "partial-line", "drip"] as const;
    const sockets = Array.from({ length: 150 }, (_, i) => slowClient(server.port, modes[i % 3] ?? "silent"));
    try {
      // The 2 s request timeout has not passed yet: the slow sockets are all still open.
      const started = Date.now();
      for (let i = 0; i < 5; i++) await legitimateCall(server.url, LEGIT_SLOW);
      expect(Date.now() - started).toBeLessThan(30_000);
      const outcomes = await Promise.all(sockets.map((s) => s.closed(30_000)));
      for (const [i, outcome] of outcomes.entries()) {
        expect(outcome.closed, `socket ${i} (${modes[i % 3]}) still open`).toBe(true);
        // 2 s, plus up to one check interval (500 ms), plus a loaded machine.
        expect(outcome.afterMs).toBeGreaterThanOrEqual(1_500);
        expect(sockets[i]?.received()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      }
      await legitimateCall(server.url, LEGIT_SLOW);
    } finally {
      for (const s of sockets) s.destroy();
    }
  });
});

const retryAfterOf = (res: HttpAnswer) => Number(res.headers["retry-after"]);

function expectTooMany(res: HttpAnswer): void {
  expect(res.status).toBe(429);
  const seconds = retryAfterOf(res);
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(60);
  expect(res.json).toEqual({
    jsonrpc: "2.0",
    error: { code: -32000, message: `Too Many Requests: rate limit exceeded; retry after ${seconds} s` },
    id: null,
  });
}

describe(`floods past the rate limit (${LIMIT} per minute)`, () => {
  it("one token's 150 concurrent calls: exactly the limit are served, the rest are 429 with Retry-After; another token is served meanwhile", async () => {
    const flood = Promise.all(Array.from({ length: 150 }, () => post(server.url, ping, bearer(FLOODER))));
    await legitimateCall(server.url, LEGIT_FLOOD);
    const answers = await flood;
    await legitimateCall(server.url, LEGIT_FLOOD);
    const served = answers.filter((a) => a.status === 200);
    expect(served).toHaveLength(LIMIT);
    for (const a of served) expect(a.json).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
    const refused = answers.filter((a) => a.status !== 200);
    expect(refused).toHaveLength(150 - LIMIT);
    for (const a of refused) expectTooMany(a);
    // Still limited afterwards: the allowance does not come back early.
    expectTooMany(await post(server.url, ping, bearer(FLOODER)));
  });

  it("guessing tokens from one address: failures count against it, then 429; a valid token from the same address is still served", async () => {
    const attacker = { localAddress: "127.0.0.2" };
    const guesses = await Promise.all(
      Array.from({ length: 100 }, (_, i) => post(server.url, ping, bearer(`guess-${i}-0123456789abcdef`), attacker)),
    );
    const unauthorized = guesses.filter((g) => g.status === 401);
    expect(unauthorized).toHaveLength(LIMIT);
    for (const g of unauthorized) expect(errorMessage(g)).toBe("Unauthorized: the token is not valid");
    const limited = guesses.filter((g) => g.status !== 401);
    expect(limited).toHaveLength(100 - LIMIT);
    for (const g of limited) expectTooMany(g);
    // Further guesses stay limited, so the address cannot keep trying.
    expectTooMany(await post(server.url, ping, bearer(`guess-x-0123456789abcdef`), attacker));
    // The limit is per token once authenticated: a valid client behind the same address is served.
    const valid = await post(server.url, ping, bearer(LEGIT_GUESS), attacker);
    expect(valid.status).toBe(200);
    await legitimateCall(server.url, LEGIT_GUESS);
  });
});
