import { afterAll, describe, expect, it } from "vitest";
import { post, toolCall } from "./attack-support/http.js";
import { type Acknowledged, countBy, LOAD_CALLS, LOAD_CONCURRENCY, runMixedLoad } from "./attack-support/load.js";
import { readPersisted } from "./attack-support/persisted.js";
import { mb, sampleRss } from "./attack-support/rss.js";
import { startHttpServer, stopAll } from "./attack-support/server.js";

afterAll(stopAll);

const MiB = 1024 * 1024;

/** Reads every acknowledged create back through the server, 20 per batch. */
async function unreadable(url: string, acknowledged: readonly Acknowledged[]): Promise<Acknowledged[]> {
  const missing: Acknowledged[] = [];
  for (let at = 0; at < acknowledged.length; at += 20) {
    const slice = acknowledged.slice(at, at + 20);
    const batch = slice.map((a, i) =>
      a.kind === "note"
        ? toolCall("get_note", { title: a.key }, i)
        : a.kind === "ticket"
          ? toolCall("get_ticket", { id: a.key }, i)
          : toolCall("crm_get_account", { account_id: a.key }, i),
    );
    const res = await post(url, batch);
    const answers = res.json as Array<{ id: number; result?: { isError?: boolean } }>;
    for (const answer of answers) {
      if (answer.result?.isError !== undefined || !answer.result) missing.push(slice[answer.id] as Acknowledged);
    }
  }
  return missing;
}

describe(`load: ${LOAD_CALLS} mixed calls at concurrency ${LOAD_CONCURRENCY} (stateless)`, () => {
  it(
    "no protocol failures, every acknowledged create is readable and persisted, memory bounded",
    async () => {
      const server = await startHttpServer(["--demo", "--rate-limit", "0"]);
      const run = `s${Date.now().toString(36)}`;
      const rss = sampleRss(server.pid);
      const { records, acknowledged, elapsedMs } = await runMixedLoad({
        url: server.url,
        run,
        total: LOAD_CALLS,
        concurrency: LOAD_CONCURRENCY,
      });
      const memory = rss.stop();
      const outcomes = countBy(records, (r) => r.outcome);
      console.log(
        `[load] ${records.length} calls in ${elapsedMs} ms (${Math.round((records.length / elapsedMs) * 1000)}/s), ` +
          `outcomes ${JSON.stringify(outcomes)}, ${acknowledged.length} creates acknowledged, ` +
          `server RSS first ${mb(memory.first)} MB, peak ${mb(memory.peak)} MB, last ${mb(memory.last)} MB (${memory.count} samples)`,
      );
      const failures = records.filter((r) => r.outcome !== "ok");
      expect(failures.slice(0, 5)).toEqual([]);
      expect(records).toHaveLength(LOAD_CALLS);
      // Every fourth call of the mix is a create (notes, tickets, accounts).
      expect(acknowledged).toHaveLength(records.filter((r) => r.create).length);
      expect(await unreadable(server.url, acknowledged)).toEqual([]);
      // Memory: a fixed ceiling, far above the ~100 MB such a run needs, far below a leak of 5,000 requests' bodies.
      expect(memory.peak).toBeLessThan(400 * MiB);

      server.proc.kill("SIGTERM");
      expect(await server.exited).toBe(0);
      const persisted = readPersisted(server.db, run);
      expect(persisted.integrity).toEqual(["ok"]);
      for (const a of acknowledged) expect(persisted.keys[a.kind].has(a.key), `${a.kind} ${a.key}`).toBe(true);
      // Each create ran once: no duplicates, no extra rows.
      expect(persisted.counts).toEqual(countBy(acknowledged, (a) => a.kind));
    },
    LOAD_CALLS * 60 + 60_000,
  );
});
