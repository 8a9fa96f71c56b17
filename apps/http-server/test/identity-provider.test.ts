// The identity provider seen through the bin: key rotation, junk key ids, a hanging or oversized key
// set, clock tolerance and tokens in the URL, over real HTTP against a key-set server the test controls.
import { type JwksServer, legacyInitialize, startJwks } from "@toolshed/test-support";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type HttpProcess, killChildren, post, removeTempDirs, startServer } from "./helpers.js";

const ISSUER = "https://issuer.test";
const AUDIENCE = "https://toolshed.test/mcp";
const init = legacyInitialize();
const KEYS_DOWN = "Service Unavailable: the server could not load the keys to check the token; retry later";
const NEW_KEY = "Service Unavailable: the token is signed with a key the server has not loaded yet; retry later";

const keySets: JwksServer[] = [];
async function keySet(): Promise<JwksServer> {
  const jwks = await startJwks();
  keySets.push(jwks);
  return jwks;
}
const serve = (jwks: JwksServer, more: string[] = []) =>
  startServer(["--jwks-url", jwks.url, "--jwt-issuer", ISSUER, "--jwt-audience", AUDIENCE, ...more]);
const sign = (jwks: JwksServer, options: { kid?: string; strangerKey?: boolean; notBefore?: number } = {}) =>
  jwks.sign({ scope: "tools:read" }, { issuer: ISSUER, audience: AUDIENCE, ...options });
const call = (server: HttpProcess, token: string) => post(server.url, init, { authorization: `Bearer ${token}` });
const messageOf = (res: { json: unknown }) => (res.json as { error?: { message?: string } }).error?.message;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

afterEach(async () => {
  await killChildren();
});
afterAll(async () => {
  await Promise.all(keySets.splice(0).map((k) => k.close()));
  removeTempDirs();
});

describe("a healthy identity provider", () => {
  let jwks: JwksServer;
  beforeAll(async () => {
    jwks = await keySet();
  });

  it("a key published after the last fetch: 503 with Retry-After until the cooldown ends, then 200", async () => {
    await jwks.addKey("rotated", { publish: false });
    const [current, rotated] = await Promise.all([sign(jwks), sign(jwks, { kid: "rotated" })]);
    const server = await serve(jwks, ["--jwks-cooldown", "3s"]);
    expect((await call(server, current)).status).toBe(200);
    jwks.publish("rotated");
    const early = await call(server, rotated);
    expect(early.status).toBe(503);
    expect(messageOf(early)).toBe(NEW_KEY);
    const retryAfter = Number(early.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(3);
    await sleep(retryAfter * 1000 + 100);
    expect((await call(server, rotated)).status).toBe(200);
    expect(jwks.fetches()).toBe(2);
  });

  it("30 junk key ids at once make at most one key-set fetch", async () => {
    const server = await serve(jwks, ["--jwks-cooldown", "1m"]);
    expect((await call(server, await sign(jwks))).status).toBe(200);
    const before = jwks.fetches();
    const junk = await Promise.all(
      Array.from({ length: 30 }, (_, i) => sign(jwks, { kid: `junk-${i}`, strangerKey: true })),
    );
    const answers = await Promise.all(junk.map((token) => call(server, token)));
    // Within the cooldown nothing is fetched: each is "retry later", never a fetch per token.
    expect(answers.map((a) => a.status)).toEqual(Array(30).fill(503));
    expect(answers.every((a) => Number(a.headers.get("retry-after")) > 50)).toBe(true);
    expect(jwks.fetches()).toBe(before);
  });

  it("allows 5 s of clock difference: a JWT whose nbf is 2 s ahead is served", async () => {
    const server = await serve(jwks);
    const token = await sign(jwks, { notBefore: Math.floor(Date.now() / 1000) + 2 });
    expect((await call(server, token)).status).toBe(200);
    const strict = await serve(jwks, ["--clock-tolerance", "0"]);
    const refused = await call(strict, await sign(jwks, { notBefore: Math.floor(Date.now() / 1000) + 2 }));
    expect(refused.status).toBe(401);
    expect(messageOf(refused)).toBe("Unauthorized: the token is not valid yet");
  });

  it("a token in the URL is 400 whatever the case of its name", async () => {
    const server = await serve(jwks);
    const token = await sign(jwks);
    for (const name of ["ACCESS_TOKEN", "Access_Token", "API_KEY", "Bearer", "toKen"]) {
      const res = await post(`${server.url}?${name}=${token}`, init, { authorization: `Bearer ${token}` });
      expect(res.status).toBe(400);
      expect(messageOf(res)).toBe(
        `Bad Request: tokens are not accepted in the URL (found "${name}"); send the header Authorization: Bearer <token>`,
      );
    }
  });
});

describe("a failing identity provider", () => {
  it("hanging: callers wait --jwks-timeout once, then get 503 at once; one fetch, one log line", async () => {
    const jwks = await keySet();
    jwks.behave("hang");
    const server = await serve(jwks, ["--jwks-timeout", "500ms"]);
    const token = await sign(jwks);
    let started = performance.now();
    const first = await Promise.all(Array.from({ length: 20 }, () => call(server, token)));
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(first.map((r) => r.status)).toEqual(Array(20).fill(503));
    expect(first.map((r) => r.headers.get("retry-after"))).toEqual(Array(20).fill("30"));
    started = performance.now();
    const again = await Promise.all(Array.from({ length: 20 }, () => call(server, token)));
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(again.map((r) => messageOf(r))).toEqual(Array(20).fill(KEYS_DOWN));
    expect(jwks.fetches()).toBe(1);
    const said = server.logs().filter((l) => l.msg.startsWith("JWKS fetch failed"));
    expect(said.map((l) => l.msg)).toEqual([
      `JWKS fetch failed: the JWKS endpoint ${jwks.url} did not answer within 500 ms; JWTs are answered 503 until the key set loads`,
    ]);
  });

  it("an endless key set is cut at --jwks-max-bytes and remembered as a failure", async () => {
    const jwks = await keySet();
    jwks.behave("huge");
    const server = await serve(jwks, ["--jwks-max-bytes", "64k"]);
    const token = await sign(jwks);
    for (let i = 0; i < 5; i++) expect(messageOf(await call(server, token))).toBe(KEYS_DOWN);
    expect(jwks.fetches()).toBe(1);
    expect(
      server
        .logs()
        .filter((l) => l.msg.startsWith("JWKS fetch failed"))
        .map((l) => l.msg),
    ).toEqual([
      `JWKS fetch failed: the key set from ${jwks.url} is larger than 65536 bytes (maxBytes); JWTs are answered 503 until the key set loads`,
    ]);
  });
});
