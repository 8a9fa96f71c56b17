import { leaksIn, responseProblems } from "@toolshed/testing";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DbSnapshotter } from "./support/db-snapshot.js";
import { announceFuzz, FUZZ_SEED, fuzzRuns, fuzzTimeoutMs } from "./support/fuzz-settings.js";
import { expectationFor, parses, rawMessage } from "./support/raw-messages.js";
import { type Exchange, type FuzzTarget, idKey, startHttpTarget, startStdioTarget } from "./support/targets.js";
import { tempDir } from "./support/temp-db.js";

const RUNS = fuzzRuns(0.17); // per transport
const starters = { stdio: startStdioTarget, http: startHttpTarget };

type Answer = { id?: unknown; error?: { code?: number }; result?: unknown };

/** Every way the answers to one raw text can break C12. */
function problemsWith(text: string, exchange: Exchange): string[] {
  const problems = problemsAsSent(text, exchange);
  // RFC 8259 lets a parser ignore a byte order mark; the HTTP server does, the stdio one does not.
  if (problems.length > 0 && text.startsWith("\ufeff") && problemsAsSent(text.slice(1), exchange).length === 0)
    return [];
  return problems;
}

function problemsAsSent(text: string, exchange: Exchange): string[] {
  const answers = exchange.answers as Answer[];
  const problems = [...exchange.transportProblems, ...leaksIn(exchange.raw, text)];
  answers.forEach((a, i) => {
    for (const p of responseProblems(a)) problems.push(`answer ${i}: ${p}`);
  });
  const parsed = parses(text);
  if (!parsed.ok || (Array.isArray(parsed.value) && parsed.value.length === 0)) {
    const code = parsed.ok ? -32600 : -32700;
    if (answers.length !== 1 || answers[0]?.id !== null || answers[0]?.error?.code !== code) {
      problems.push(`expected one ${code} answer with id null, got ${JSON.stringify(answers).slice(0, 300)}`);
    }
    return problems;
  }
  const elements = Array.isArray(parsed.value) ? parsed.value : [parsed.value];
  const expectations = elements.map(expectationFor);
  const ids = new Set(expectations.filter((e) => e.id !== undefined).map((e) => idKey(e.id)));
  for (const e of expectations) {
    if (e.id === undefined) continue;
    const mine = answers.filter((a) => idKey(a.id) === idKey(e.id));
    if (mine.length > 1 || (e.mustAnswer && mine.length === 0)) {
      problems.push(`id ${idKey(e.id)} got ${mine.length} answers (expected ${e.mustAnswer ? "one" : "at most one"})`);
    }
    const answer = mine[0];
    if (!answer || e.outcome === undefined) continue;
    if (e.outcome === "result" ? !("result" in answer) : !e.outcome.includes(answer.error?.code as number)) {
      problems.push(
        `id ${idKey(e.id)} expected ${JSON.stringify(e.outcome)}, got ${JSON.stringify(answer).slice(0, 300)}`,
      );
    }
  }
  for (const a of answers) {
    if (a.id === null) {
      if (![-32600, -32700].includes(a.error?.code as number)) problems.push(`id null answer ${JSON.stringify(a)}`);
    } else if (!ids.has(idKey(a.id))) problems.push(`answer to an id nobody sent: ${JSON.stringify(a).slice(0, 200)}`);
  }
  if (answers.filter((a) => a.id === null).length > elements.length)
    problems.push("more id-null answers than messages");
  return problems;
}

describe.each(["stdio", "http"] as const)("fuzzing raw JSON-RPC over %s", (transport) => {
  const temp = tempDir(`fuzz-raw-${transport}`);
  const db = temp.file("toolshed.db");
  let target: FuzzTarget;
  let snapshots: DbSnapshotter;

  beforeAll(async () => {
    target = await starters[transport](db);
    snapshots = new DbSnapshotter(db);
  });

  afterAll(async () => {
    snapshots?.close();
    await target?.stop();
    temp.remove();
  });

  it(
    `gives every request with an id exactly one well-formed answer of the right kind (${RUNS} messages)`,
    async () => {
      announceFuzz(`raw JSON-RPC over ${transport}`, RUNS);
      const before = snapshots.take();
      await fc.assert(
        fc.asyncProperty(rawMessage, async ({ label, text }) => {
          const parsed = parses(text);
          const elements = parsed.ok ? [parsed.value].flat() : [];
          const expected = elements
            .map(expectationFor)
            .filter((e) => e.mustAnswer && e.id !== undefined)
            .map((e) => idKey(e.id));
          const problems = problemsWith(text, await target.send(text, expected));
          if (!target.alive()) problems.push("the server process exited");
          if (problems.length > 0) {
            throw new Error(`${label}: ${text.slice(0, 300)}\n- ${problems.join("\n- ")}`);
          }
        }),
        { numRuns: RUNS, seed: FUZZ_SEED, endOnFailure: true },
      );
      expect(target.alive()).toBe(true);
      // Only reads are generated (get_note, search_notes, lists): the data is as it was.
      expect(snapshots.take()).toBe(before);
    },
    fuzzTimeoutMs(RUNS),
  );
});
