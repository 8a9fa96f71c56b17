import { afterAll, describe, expect, it } from "vitest";
import { countBy, LOAD_CALLS, LOAD_CONCURRENCY, runMixedLoad } from "./attack-support/load.js";
import { readPersisted } from "./attack-support/persisted.js";
import { mb, sampleRss } from "./attack-support/rss.js";
import { startHttpServer, stopAll } from "./attack-support/server.js";

afterAll(stopAll);

const SHUTDOWN_TIMEOUT_S = 5;
// --shutdown-timeout for running calls, up to 5 s more for answers to flush, then closing the stores.
const EXIT_DEADLINE_MS = (SHUTDOWN_TIMEOUT_S + 5) * 1000 + 10_000;

describe(`SIGTERM in the middle of ${LOAD_CALLS} mixed calls at concurrency ${LOAD_CONCURRENCY}`, () => {
  it(
    "calls finish or fail cleanly and retryably, every acknowledged write is persisted, exit 0 within the deadline",
    async () => {
      const server = await startHttpServer([
        "--demo",
        "--rate-limit",
        "0",
        "--shutdown-timeout",
        `${SHUTDOWN_TIMEOUT_S}s`,
      ]);
      const run = `t${Date.now().toString(36)}`;
      const rss = sampleRss(server.pid);
      let signalledAt: number | undefined;
      const exitedAt = server.exited.then((code) => ({ code, at: Date.now() }));
      const load = runMixedLoad({
        url: server.url,
        run,
        total: LOAD_CALLS,
        concurrency: LOAD_CONCURRENCY,
        onProgress: (done) => {
          if (done === Math.floor(LOAD_CALLS / 3) && signalledAt === undefined) {
            signalledAt = Date.now();
            server.proc.kill("SIGTERM");
          }
        },
      });
      const { records, acknowledged, elapsedMs } = await load;
      const exit = await exitedAt;
      const memory = rss.stop();
      expect(signalledAt).toBeDefined();
      const shuttingDown = server.logs().find((l) => l.msg === "shutting down");
      const outcomes = countBy(records, (r) => r.outcome);
      const lost = records.filter((r) => r.outcome === "no-connection");
      console.log(
        `[shutdown] ${records.length} calls in ${elapsedMs} ms, SIGTERM after ${Math.floor(LOAD_CALLS / 3)} answers ` +
          `with ${shuttingDown?.inFlight} in flight; outcomes ${JSON.stringify(outcomes)}; ` +
          `connection errors ${JSON.stringify(countBy(lost, (r) => r.detail?.split(" ")[0] ?? "?"))}; ` +
          `exit ${exit.code} ${exit.at - (signalledAt ?? 0)} ms after SIGTERM; ${acknowledged.length} creates acknowledged; ` +
          `peak RSS ${mb(memory.peak)} MB`,
      );

      // Every call got its answer, a 503 "shutting down" with Retry-After, a retryable tool error,
      // or no connection at all: never a broken or wrong answer.
      expect(records.filter((r) => r.outcome === "protocol-failure").slice(0, 5)).toEqual([]);
      expect(records).toHaveLength(LOAD_CALLS);
      // The calls before the signal were all served.
      expect(outcomes.ok).toBeGreaterThanOrEqual(Math.floor(LOAD_CALLS / 3));
      expect(exit.code).toBe(0);
      expect(exit.at - (signalledAt ?? 0)).toBeLessThan(EXIT_DEADLINE_MS);
      expect(server.logs().some((l) => l.msg === "stopped")).toBe(true);

      const persisted = readPersisted(server.db, run);
      expect(persisted.integrity).toEqual(["ok"]);
      for (const a of acknowledged) expect(persisted.keys[a.kind].has(a.key), `${a.kind} ${a.key} lost`).toBe(true);
      // Refused before dispatch (503) or never connected: nothing of it may have been written.
      const neverRan = records.filter(
        (r) => r.create && (r.outcome === "shutting-down" || r.detail?.startsWith("ECONNREFUSED")),
      );
      for (const r of neverRan) {
        const create = r.create as NonNullable<typeof r.create>;
        expect(persisted.titles[create.kind].has(create.title), `${create.title} written though refused`).toBe(false);
      }
      // Nothing written twice, nothing written that was not asked for.
      const asked = records.filter((r) => r.create).length;
      const written = persisted.counts.note + persisted.counts.ticket + persisted.counts.account;
      expect(written).toBeGreaterThanOrEqual(acknowledged.length);
      expect(written).toBeLessThanOrEqual(asked - neverRan.length);

      // A client retries the creates that got no acknowledgement, with the same idempotency keys:
      // each succeeds and every record then exists exactly once.
      const again = await startHttpServer(["--rate-limit", "0"], { db: server.db });
      const unanswered = records.filter((r) => r.create && r.outcome !== "ok").map((r) => r.index);
      const retried = await runMixedLoad({
        url: again.url,
        run,
        total: LOAD_CALLS,
        concurrency: LOAD_CONCURRENCY,
        indices: unanswered,
      });
      expect(retried.records.filter((r) => r.outcome !== "ok").slice(0, 5)).toEqual([]);
      again.proc.kill("SIGTERM");
      expect(await again.exited).toBe(0);
      const final = readPersisted(server.db, run);
      const creates = records.filter((r) => r.create);
      expect(final.counts).toEqual(countBy(creates, (r) => r.create?.kind ?? "?"));
      for (const r of creates) {
        const create = r.create as NonNullable<typeof r.create>;
        expect(final.titles[create.kind].has(create.title), create.title).toBe(true);
      }
      console.log(`[shutdown] retried ${unanswered.length} unacknowledged creates: each exists exactly once`);
    },
    LOAD_CALLS * 60 + 60_000,
  );
});
