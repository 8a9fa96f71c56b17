// HTTP throughput, latency and memory: each contender in its own process on core 0, autocannon
// in this process on core 1, tools/call under a fixed number of connections. Contenders take
// turns within each round (the order rotates), so drift on the machine hits all of them alike.
// A contender with `era: "modern"` gets 2026-07-28 requests (headers and `_meta` envelope), the
// others 2025 ones.
import autocannon from "autocannon";
import { HTTP_CONTENDERS, TOOLS } from "./contenders/index.mjs";
import { bodyCheck, callMessage, checkCall, headersFor, openSession, post } from "./harness/mcp.mjs";
import { freePort, memoryOf, startServer } from "./harness/proc.mjs";

function load(url, headers, body, verifyBody, { connections, seconds }) {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        method: "POST",
        headers,
        body,
        connections,
        duration: seconds,
        // Every answer must pass the check: a fast wrong answer is a failure.
        verifyBody,
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
}

/** Proves a running contender answers both tools correctly, in its era; returns its session headers (none when stateless). */
async function verify(contender, url) {
  const headers = contender.session ? await openSession(url) : {};
  for (const { tool, args, value } of TOOLS) {
    const answer = await post(url, callMessage(tool, args, 1, contender.era), headers, contender.era);
    const problem =
      answer.status === 200 ? checkCall(answer.messages[0], value, contender.era) : `HTTP ${answer.status}`;
    if (problem) throw new Error(`${contender.label}, ${tool}: ${problem}`);
  }
  return headers;
}

/**
 * Runs `rounds` rounds; in each, every contender is started fresh, checked, loaded with each tool
 * (a short warm-up, then `seconds` measured), its peak RSS read, and stopped.
 * Returns runs per contender and tool, peak RSS per contender, and the failures seen.
 */
export async function runHttpBench({ db, rounds, seconds, warmupSeconds, connections, log }) {
  const runs = {};
  const memory = {};
  const failures = [];
  for (const c of HTTP_CONTENDERS) {
    runs[c.id] = Object.fromEntries(TOOLS.map((t) => [t.tool, []]));
    memory[c.id] = [];
  }
  for (let round = 0; round < rounds; round++) {
    const order = HTTP_CONTENDERS.map((_, i) => HTTP_CONTENDERS[(i + round) % HTTP_CONTENDERS.length]);
    for (const contender of order) {
      const port = await freePort();
      let server;
      try {
        server = await startServer(contender.script, [...contender.args, "--port", String(port), "--db", db]);
        const session = await verify(contender, server.url);
        const idle = memoryOf(server.pid);
        for (const { tool, args, value } of TOOLS) {
          const message = callMessage(tool, args, 7, contender.era);
          const body = JSON.stringify(message);
          const headers = { ...headersFor(message, contender.era), ...session };
          const check = bodyCheck(value, contender.era);
          if (warmupSeconds > 0) await load(server.url, headers, body, check, { connections, seconds: warmupSeconds });
          const r = await load(server.url, headers, body, check, { connections, seconds });
          const bad = r.errors + r.timeouts + r.non2xx + (r.mismatches ?? 0);
          if (bad > 0 || r.requests.total === 0) {
            failures.push(
              `${contender.label}, ${tool}: ${r.requests.total} answers, ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx, ${r.mismatches} wrong bodies`,
            );
          }
          runs[contender.id][tool].push({ rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99 });
          log(
            `http round ${round + 1}/${rounds} ${contender.label.padEnd(36)} ${tool.padEnd(8)} ${Math.round(r.requests.average)} req/s p50 ${r.latency.p50} ms p99 ${r.latency.p99} ms`,
          );
        }
        const mem = memoryOf(server.pid);
        if (mem) memory[contender.id].push({ peakKb: mem.peakKb, idleKb: idle?.rssKb, afterKb: mem.rssKb });
      } catch (error) {
        failures.push(`${contender.label}: ${error.message}`);
        log(`http ${contender.label}: FAILED ${error.message}`);
      } finally {
        await server?.stop();
      }
    }
  }
  return {
    contenders: HTTP_CONTENDERS,
    tools: TOOLS.map((t) => t.tool),
    runs,
    memory,
    failures,
    connections,
    seconds,
    rounds,
  };
}
