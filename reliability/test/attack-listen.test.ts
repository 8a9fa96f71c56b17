import { readdirSync } from "node:fs";
import type { HttpProcess } from "@toolshed/test-support";
import { MODERN_VERSION, modernEnvelope, openStream } from "@toolshed/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { legitimateCall } from "./attack-support/legit.js";
import { startHttpServer, stopAll } from "./attack-support/server.js";

// One read-only token holding subscriptions/listen streams open (2026-07-28): each holds a
// connection for as long as the client likes. Before issue 36 every one was served, so a single
// token could take every file descriptor the server has.
const READER = "listen-reader-token-0123456789ab";
const OTHER = "listen-other-token-0123456789abc";
const ATTEMPTS = 200;

let server: HttpProcess;

beforeAll(async () => {
  const tokens = [`${READER}:tools:read`, `${OTHER}:tools:read tools:write`].join(";");
  // No rate limit: the cap on streams must hold on its own.
  server = await startHttpServer(["--demo", "--rate-limit", "0"], { env: { TOOLSHED_TOKENS: tokens } });
});
afterAll(stopAll);

const fdsOf = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

function listen(token: string, id: number) {
  return openStream(
    server.url,
    {
      jsonrpc: "2.0",
      id,
      method: "subscriptions/listen",
      params: { _meta: modernEnvelope(), notifications: { resourcesListChanged: true } },
    },
    {
      "mcp-protocol-version": MODERN_VERSION,
      "mcp-method": "subscriptions/listen",
      authorization: `Bearer ${token}`,
    },
  );
}

describe("subscriptions/listen streams from one token", () => {
  it(`${ATTEMPTS} streams from one read-only token: 16 are served, the rest are 429, the server's descriptors stay bounded and others are served`, async () => {
    const before = fdsOf(server.pid);
    const streams = await Promise.all(Array.from({ length: ATTEMPTS }, (_, i) => listen(READER, i)));
    try {
      const served = streams.filter((s) => s.status === 200);
      const refused = streams.filter((s) => s.status === 429);
      expect(served).toHaveLength(16);
      expect(refused).toHaveLength(ATTEMPTS - 16);
      for (const s of served) expect((await s.next()).method).toBe("notifications/subscriptions/acknowledged");
      for (const s of refused) s.close();
      // The refused connections are idle keep-alive ones, closed by the server within its
      // keep-alive timeout (5 s); the served streams stay: 16 descriptors, not 200.
      const deadline = Date.now() + 15_000;
      while (fdsOf(server.pid) - before >= 16 + 8 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(fdsOf(server.pid) - before).toBeLessThan(16 + 8);
      // Another token listens, and everyone else's calls are served.
      const other = await listen(OTHER, 9_999);
      expect(other.status).toBe(200);
      other.close();
      await legitimateCall(server.url, OTHER);
    } finally {
      for (const s of streams) s.close();
    }
  });
});
