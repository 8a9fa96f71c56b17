import { DEMO_ACCOUNTS } from "@toolshed/crm";
import { DEMO_NOTES } from "@toolshed/notes";
import { HttpChild } from "./http-child.js";
import type { KnownValues } from "./json-schema-arb.js";
import { idKey, StdioChild } from "./stdio-child.js";

/** What one raw message got back: the JSON-RPC answers, and the raw text they came in. */
export interface Exchange {
  answers: unknown[];
  /** Everything the client received, for the leak checks. */
  raw: string;
  /** Problems with the transport itself (an unparseable line, a wrong HTTP status or content type). */
  transportProblems: string[];
}

/** A server under test, spoken to in raw JSON-RPC text. */
export interface FuzzTarget {
  name: "stdio" | "http";
  /** Sends one message (or batch, or garbage) and waits for the answers to the given ids. */
  send(text: string, expectedIds: readonly string[]): Promise<Exchange>;
  alive(): boolean;
  logs(): string;
  stop(): Promise<void>;
}

export async function startStdioTarget(db: string): Promise<FuzzTarget> {
  const child = await StdioChild.start(["--db", db, "--demo"]);
  return {
    name: "stdio",
    async send(text, expectedIds) {
      const lines = await child.exchange(text, expectedIds);
      return {
        answers: lines.filter((l) => l.ok).map((l) => (l.ok ? l.value : undefined)),
        raw: lines.map((l) => (l.ok ? JSON.stringify(l.value) : l.raw)).join("\n"),
        transportProblems: lines
          .filter((l) => !l.ok)
          .map((l) => `stdout line is not JSON: ${l.ok ? "" : l.raw.slice(0, 200)}`),
      };
    },
    alive: () => child.alive,
    logs: () => child.stderr,
    stop: () => child.stop(),
  };
}

export async function startHttpTarget(db: string): Promise<FuzzTarget> {
  // No rate limit: the fuzzer sends thousands of requests a minute from one address.
  const child = await HttpChild.start(["--db", db, "--demo", "--rate-limit", "0"]);
  return {
    name: "http",
    async send(text) {
      const answer = await child.post(text);
      const problems: string[] = [];
      if (answer.parseError)
        problems.push(`HTTP body does not parse (${answer.parseError}): ${answer.text.slice(0, 200)}`);
      if (answer.status >= 500) problems.push(`HTTP ${answer.status}`);
      if (answer.status === 202 && answer.text !== "") problems.push("202 with a body");
      if (answer.status !== 202 && answer.messages.length === 0) {
        problems.push(
          `HTTP ${answer.status} ${answer.contentType} without a JSON-RPC answer: ${answer.text.slice(0, 200)}`,
        );
      }
      return { answers: answer.messages, raw: answer.text, transportProblems: problems };
    },
    alive: () => child.alive,
    logs: () => child.stderr,
    stop: () => child.stop(),
  };
}

/** Titles, ids and tags of the demo data, so generated calls reach real rows. */
export const KNOWN_VALUES: KnownValues = {
  strings: [
    ...DEMO_NOTES.slice(0, 8).map((n) => n.title),
    ...DEMO_ACCOUNTS.slice(0, 6).map((a) => a.id),
    "acc_1034",
    ...DEMO_ACCOUNTS.slice(0, 3).map((a) => a.name),
    ...[1, 2, 3, 1001, 1002, 1003].map((n) => `T-${n}`),
    "home",
    "work",
    "milk",
    "logistics",
  ],
};

export { idKey };
