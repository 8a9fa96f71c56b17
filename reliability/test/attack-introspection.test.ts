import { type AuthorizationServer, type HttpProcess, startAuthorizationServer } from "@toolshed/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, post } from "./attack-support/http.js";
import { startHttpServer, stopAll } from "./attack-support/server.js";

// A flood of junk opaque tokens: each one unknown, so each would be a question to the
// authorization server. Before issue 36 the address's allowance was charged only after the
// introspection answered, so every junk token was asked about (300 of 300).
const CLIENT_ID = "toolshed-http";
const CLIENT_SECRET = "introspection-secret-0123456789";
const VALID = "opaque-valid-token-0123456789ab";
const LIMIT = 30;
const JUNK = 300;

let as: AuthorizationServer;
let server: HttpProcess;

beforeAll(async () => {
  as = await startAuthorizationServer(
    (token) =>
      token === VALID
        ? {
            active: true,
            sub: "alice",
            client_id: "app",
            scope: "tools:read",
            exp: Math.floor(Date.now() / 1000) + 3600,
          }
        : { active: false },
    { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
  );
  server = await startHttpServer(
    ["--demo", "--rate-limit", String(LIMIT), "--introspection-url", as.url, "--introspection-client-id", CLIENT_ID],
    { env: { TOOLSHED_INTROSPECTION_CLIENT_SECRET: CLIENT_SECRET } },
  );
});
afterAll(async () => {
  await stopAll();
  await as?.close();
});

const ping = { jsonrpc: "2.0", id: 1, method: "ping" };

describe("junk opaque tokens before the rate limit", () => {
  it(`${JUNK} junk tokens from one address, 100 at a time: the authorization server hears at most the address's allowance, the rest are 429 unasked`, async () => {
    const statuses: number[] = [];
    for (let round = 0; round < JUNK / 100; round++) {
      const answers = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          post(server.url, ping, bearer(`junk-${round}-${i}-0123456789abcdef`), { localAddress: "127.0.0.3" }),
        ),
      );
      statuses.push(...answers.map((a) => a.status));
    }
    const junkCalls = as.calls.filter((c) => c.token.startsWith("junk-"));
    expect(junkCalls.length).toBeLessThanOrEqual(LIMIT);
    expect(statuses.filter((s) => s === 401)).toHaveLength(junkCalls.length);
    expect(statuses.filter((s) => s === 429)).toHaveLength(JUNK - junkCalls.length);

    // Another address is unaffected: its valid token is asked about once and served.
    const fine = await post(server.url, ping, bearer(VALID), { localAddress: "127.0.0.4" });
    expect(fine.status).toBe(200);
    expect(as.calls.filter((c) => c.token === VALID)).toHaveLength(1);
    // The flooding address has spent its allowance: a new token from it waits (429, Retry-After).
    const held = await post(server.url, ping, bearer(`${VALID}-other`), { localAddress: "127.0.0.3" });
    expect(held.status).toBe(429);
    expect(Number(held.headers["retry-after"])).toBeGreaterThanOrEqual(1);
  });
});
