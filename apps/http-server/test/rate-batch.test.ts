import { legacyInitialize } from "@toolshed/test-support";
// The rate limit counts calls, not POSTs: every request of a JSON-RPC batch takes one from the
// caller's allowance, and a batch that does not fit is refused before any of it runs.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HttpProcess, killChildren, post, removeTempDirs, startServer } from "./helpers.js";

const TOKENS = ["a", "b", "c", "d"].map((t) => `${t}-token-0123456789abcdef`);
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const create = (id: number, title: string) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "create_note", arguments: { title, body: "from a batch" } },
});
const init = legacyInitialize(0);
const list = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/list" });

let stateless: HttpProcess;
let sessions: HttpProcess;
beforeAll(async () => {
  const env = { TOOLSHED_TOKENS: TOKENS.map((t) => `${t}:tools:read tools:write`).join(";") };
  [stateless, sessions] = await Promise.all([
    startServer(["--rate-limit", "5"], { env }),
    startServer(["--rate-limit", "5", "--sessions"], { env }),
  ]);
});
afterAll(async () => {
  await killChildren();
  removeTempDirs();
});

describe("a JSON-RPC batch against --rate-limit 5", () => {
  it("stateless: 6 calls in one POST are 429 and create nothing; 5 fit; the next call is 429", async () => {
    const [token, witness] = TOKENS as [string, string];
    const six = await post(
      stateless.url,
      [1, 2, 3, 4, 5, 6].map((i) => create(i, `batch ${i}`)),
      bearer(token),
    );
    expect(six.status).toBe(429);
    expect(Number(six.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const seen = await post(
      stateless.url,
      { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "list_notes", arguments: {} } },
      bearer(witness),
    );
    expect(JSON.stringify(seen.json)).not.toContain("batch 1");
    // The refused batch cost its POST only: four of the five calls are left.
    const four = await post(
      stateless.url,
      [1, 2, 3, 4].map((i) => create(i, `fits ${i}`)),
      bearer(token),
    );
    expect(four.status).toBe(200);
    expect(four.json).toHaveLength(4);
    expect((await post(stateless.url, create(7, "one more"), bearer(token))).status).toBe(429);
  });

  it("sessions: after initialize and initialized (2 POSTs), a batch of 4 does not fit; a batch of 3 does", async () => {
    const [, , token, other] = TOKENS as [string, string, string, string];
    for (const [t, size, status] of [
      [token, 4, 429],
      [other, 3, 200],
    ] as const) {
      const opened = await post(sessions.url, init, bearer(t));
      const id = opened.headers.get("mcp-session-id") as string;
      const headers = { ...bearer(t), "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" };
      await post(sessions.url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers);
      const batch = await post(
        sessions.url,
        Array.from({ length: size }, (_, i) => list(i + 1)),
        headers,
      );
      expect(batch.status, `batch of ${size}`).toBe(status);
    }
  });
});
