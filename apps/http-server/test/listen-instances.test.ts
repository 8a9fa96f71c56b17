import { createTestSchema, pgReachable, TEST_DATABASE_URL, type TestSchema } from "@toolshed/storage/postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURE, type HttpProcess, killChildren, openStream, post, removeTempDirs, startServer } from "./helpers.js";
import { redisReachable, TEST_REDIS_URL, testKeyPrefix } from "./services.js";

// Two toolshed-http processes behind one (imagined) load balancer: one PostgreSQL, one Redis, one
// TOOLSHED_STATE_SECRET. A 2026-07-28 client needs no sticky routing: a write on A reaches a listener
// on B, and a multi round-trip request started on A finishes on B.
const pg = await pgReachable();
const redis = await redisReachable();
const skip = !pg || !redis;
if (skip) {
  process.stderr.write(
    `listen across instances SKIPPED: ${!pg ? `PostgreSQL (${TEST_DATABASE_URL})` : `Redis (${TEST_REDIS_URL})`} is not reachable\n`,
  );
}

const V = "2026-07-28";
const SECRET = "a-shared-state-secret-for-these-tests-0123456789";
const meta = (capabilities: Record<string, unknown> = {}) => ({
  "io.modelcontextprotocol/protocolVersion": V,
  "io.modelcontextprotocol/clientCapabilities": capabilities,
});
const headers = (method: string, name?: string) => ({
  "mcp-protocol-version": V,
  "mcp-method": method,
  ...(name ? { "mcp-name": name } : {}),
});

describe.skipIf(skip)("2026-07-28 across two instances (PostgreSQL, Redis, one state secret)", () => {
  let db: TestSchema;
  const keys = testKeyPrefix();
  let a: HttpProcess;
  let b: HttpProcess;
  let stranger: HttpProcess;

  beforeAll(async () => {
    db = await createTestSchema();
    const args = [
      ...["--database-url", db.url, "--database-schema", db.schema],
      ...["--redis-url", TEST_REDIS_URL, "--redis-prefix", keys.prefix, "--rate-limit", "0"],
    ];
    const env = { TOOLSHED_STATE_SECRET: SECRET };
    [a, b, stranger] = await Promise.all([
      startServer(args, { script: FIXTURE, env }),
      startServer(args, { script: FIXTURE, env }),
      startServer(args, { script: FIXTURE, env: { TOOLSHED_STATE_SECRET: "another-secret-entirely-0123456789" } }),
    ]);
  }, 120_000);

  afterAll(async () => {
    await killChildren();
    removeTempDirs();
    await keys.cleanUp();
    await db?.drop();
  });

  it("a note created on A reaches a listener on B", async () => {
    const stream = await openStream(
      b.url,
      {
        jsonrpc: "2.0",
        id: 1,
        method: "subscriptions/listen",
        params: { _meta: meta(), notifications: { resourceSubscriptions: ["note://shared"] } },
      },
      headers("subscriptions/listen"),
    );
    try {
      expect(await stream.next()).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
      const created = await post(
        a.url,
        {
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { _meta: meta(), name: "create_note", arguments: { title: "shared", body: "written on A" } },
        },
        headers("tools/call", "create_note"),
      );
      expect(created.json).toMatchObject({
        result: { resultType: "complete", structuredContent: { title: "shared" } },
      });
      expect(await stream.next()).toEqual({
        jsonrpc: "2.0",
        method: "notifications/resources/updated",
        params: { _meta: { "io.modelcontextprotocol/subscriptionId": 1 }, uri: "note://shared" },
      });
    } finally {
      stream.close();
    }
  });

  it("a question asked on A is answered on B; an instance with another secret refuses the state", async () => {
    const params = { _meta: meta({ elicitation: {} }), name: "test_confirm", arguments: { action: "ship" } };
    const first = await post(
      a.url,
      { jsonrpc: "2.0", id: 3, method: "tools/call", params },
      headers("tools/call", "test_confirm"),
    );
    const { requestState } = (first.json as { result: { requestState: string } }).result;
    const retry = {
      ...params,
      inputResponses: { confirm: { action: "accept", content: { ok: true } } },
      requestState,
    };
    const onB = await post(
      b.url,
      { jsonrpc: "2.0", id: 4, method: "tools/call", params: retry },
      headers("tools/call", "test_confirm"),
    );
    expect(onB.json).toMatchObject({ result: { resultType: "complete", structuredContent: { confirmed: true } } });
    const elsewhere = await post(
      stranger.url,
      { jsonrpc: "2.0", id: 5, method: "tools/call", params: retry },
      headers("tools/call", "test_confirm"),
    );
    expect(elsewhere.json).toMatchObject({ error: { code: -32602 } });
    expect((elsewhere.json as { error: { message: string } }).error.message).toMatch(/not issued by this server/);
  });
});
