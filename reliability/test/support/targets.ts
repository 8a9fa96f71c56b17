import { DEMO_ACCOUNTS } from "@toolshed/crm";
import { DEMO_NOTES } from "@toolshed/notes";
import type { KnownValues } from "@toolshed/testing";
import { HttpChild, MCP_HEADERS } from "./http-child.js";
import { idKey, StdioChild } from "./stdio-child.js";

/** What one raw message got back: the JSON-RPC answers, and the raw text they came in. */
export interface Exchange {
  answers: unknown[];
  /** Everything the client received, for the leak checks. */
  raw: string;
  /** Problems with the transport itself (an unparseable line, a wrong HTTP status or content type). */
  transportProblems: string[];
}

/** Which protocol era the messages speak: 2026-07-28 adds the `_meta` envelope (and HTTP headers). */
export type Era = "legacy" | "modern";

const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};
const NAME_FIELD: Record<string, string> = { "tools/call": "name", "prompts/get": "name", "resources/read": "uri" };

/**
 * A message as a 2026-07-28 client sends it: the envelope merged into params._meta, and the HTTP
 * headers that repeat the body. Text that is not one JSON-RPC request passes unchanged.
 */
export function asModern(text: string): { text: string; headers: Record<string, string> } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { text, headers: {} };
  }
  const m = value as { method?: unknown; params?: unknown };
  if (typeof value !== "object" || value === null || Array.isArray(value) || typeof m.method !== "string") {
    return { text, headers: {} };
  }
  if (m.params !== undefined && (typeof m.params !== "object" || m.params === null || Array.isArray(m.params))) {
    return { text, headers: {} };
  }
  const params = (m.params ?? {}) as Record<string, unknown>;
  const meta = typeof params._meta === "object" && params._meta !== null ? params._meta : {};
  const headers: Record<string, string> = { "mcp-protocol-version": "2026-07-28", "mcp-method": m.method };
  const named = NAME_FIELD[m.method];
  const name = named === undefined ? undefined : params[named];
  // Header values are visible ASCII; anything else travels base64-encoded, as clients send it.
  if (typeof name === "string") {
    headers["mcp-name"] = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(name)
      ? name
      : `=?base64?${Buffer.from(name).toString("base64")}?=`;
  }
  return { text: JSON.stringify({ ...m, params: { ...params, _meta: { ...meta, ...MODERN_META } } }), headers };
}

/** A server under test, spoken to in raw JSON-RPC text. */
export interface FuzzTarget {
  name: "stdio" | "http";
  era: Era;
  /** Sends one message (or batch, or garbage) and waits for the answers to the given ids. */
  send(text: string, expectedIds: readonly string[]): Promise<Exchange>;
  alive(): boolean;
  logs(): string;
  stop(): Promise<void>;
}

/** A SQLite file, or the flags that open another database (see databases.ts). */
export type TargetDatabase = string | readonly string[];

function databaseArgs(db: TargetDatabase): readonly string[] {
  return typeof db === "string" ? ["--db", db] : db;
}

export async function startStdioTarget(db: TargetDatabase, era: Era = "legacy"): Promise<FuzzTarget> {
  const child = await StdioChild.start([...databaseArgs(db), "--demo"]);
  return {
    name: "stdio",
    era,
    async send(text, expectedIds) {
      const lines = await child.exchange(era === "modern" ? asModern(text).text : text, expectedIds);
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

export async function startHttpTarget(db: TargetDatabase, era: Era = "legacy"): Promise<FuzzTarget> {
  // No rate limit: the fuzzer sends thousands of requests a minute from one address.
  const child = await HttpChild.start([...databaseArgs(db), "--demo", "--rate-limit", "0"]);
  return {
    name: "http",
    era,
    async send(text) {
      const modern = era === "modern" ? asModern(text) : undefined;
      const answer = modern
        ? await child.post(modern.text, { ...MCP_HEADERS, ...modern.headers })
        : await child.post(text);
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
