import { Agent } from "node:http";
import { type HttpAnswer, post, toolCall } from "./http.js";

/** Calls per load run; the CI default keeps each run well under a minute. TOOLSHED_LOAD_CALLS=50000 for a long run. */
export const LOAD_CALLS = Number(process.env.TOOLSHED_LOAD_CALLS ?? 5_000);
export const LOAD_CONCURRENCY = Number(process.env.TOOLSHED_LOAD_CONCURRENCY ?? 64);

export type CreateKind = "note" | "ticket" | "account";

/** A write the server acknowledged: it answered the create with the record. */
export interface Acknowledged {
  kind: CreateKind;
  /** The note title, ticket id or account id. */
  key: string;
}

export type Outcome =
  /** The answer the call should get (a result, or the tool error it was built to provoke). */
  | "ok"
  /** Refused before dispatch while shutting down: 503 with Retry-After. */
  | "shutting-down"
  /** A tool error marked retryable (a call cancelled at the shutdown deadline). */
  | "retryable-error"
  /** The connection was refused or reset before any answer: the request never got an answer. */
  | "no-connection"
  /** Anything else: a wrong status, a bad or truncated body, a JSON-RPC error, an unexpected tool error. */
  | "protocol-failure";

export interface CallRecord {
  index: number;
  kind: string;
  outcome: Outcome;
  detail?: string;
  /** For creates: what would be written, whether or not it was acknowledged. */
  create?: Acknowledged & { title: string };
}

interface RpcAnswer {
  id?: unknown;
  error?: unknown;
  result?: {
    isError?: boolean;
    structuredContent?: Record<string, unknown>;
    tools?: unknown[];
    _meta?: { "toolshed.dev/error"?: { code?: string; kind?: string; retryable?: boolean } };
  };
}

interface MixedCall {
  kind: string;
  message: unknown;
  /** Checks a 200 answer; returns the failure, or undefined when it is the right one. */
  check(answer: unknown): string | undefined;
  create?: { kind: CreateKind; title: string; keyOf(result: Record<string, unknown>): string };
}

const success = (a: unknown) => {
  const r = (a as RpcAnswer).result;
  if ((a as RpcAnswer).error) return `JSON-RPC error ${JSON.stringify((a as RpcAnswer).error)}`;
  if (!r || r.isError) return `tool error ${JSON.stringify(r).slice(0, 300)}`;
  return r.structuredContent === undefined && r.tools === undefined ? "no structured content" : undefined;
};
const toolError = (code: string) => (a: unknown) => {
  const meta = (a as RpcAnswer).result?._meta?.["toolshed.dev/error"];
  return (a as RpcAnswer).result?.isError === true && meta?.code === code
    ? undefined
    : `expected ${code}, got ${JSON.stringify(a).slice(0, 300)}`;
};

/** The i-th call of a mixed run: reads, searches, creates of all three packs, and calls that must fail. */
export function mixedCall(run: string, i: number): MixedCall {
  const title = `load ${run} ${i}`;
  const key = `${run}-${i}`;
  switch (i % 12) {
    case 0:
      return {
        kind: "create_note",
        message: toolCall("create_note", { title, body: `body ${i}`, tags: ["load"], idempotency_key: key }, i),
        check: success,
        create: { kind: "note", title, keyOf: (r) => String(r.title) },
      };
    case 1:
      return { kind: "get_note", message: toolCall("get_note", { title: "groceries" }, i), check: success };
    case 2:
      return { kind: "search_notes", message: toolCall("search_notes", { query: "milk" }, i), check: success };
    case 3:
      return {
        kind: "create_ticket",
        message: toolCall("create_ticket", { title, body: `load body ${i}`, idempotency_key: key }, i),
        check: success,
        create: { kind: "ticket", title, keyOf: (r) => String(r.id) },
      };
    case 4:
      return { kind: "search_tickets", message: toolCall("search_tickets", { query: "login" }, i), check: success };
    case 5:
      return {
        kind: "crm_create_account",
        message: toolCall("crm_create_account", { name: title, tier: "startup", arr: i, idempotency_key: key }, i),
        check: success,
        create: { kind: "account", title, keyOf: (r) => String(r.id) },
      };
    case 6:
      return {
        kind: "crm_search_accounts",
        message: toolCall("crm_search_accounts", { query: "acme" }, i),
        check: success,
      };
    case 7:
      return {
        kind: "get_note (missing)",
        message: toolCall("get_note", { title: `missing ${key}` }, i),
        check: toolError("not_found"),
      };
    case 8:
      return {
        kind: "create_note (invalid)",
        message: toolCall("create_note", { title: "", body: 42 }, i),
        check: toolError("invalid_arguments"),
      };
    case 9:
      return { kind: "tools/list", message: { jsonrpc: "2.0", id: i, method: "tools/list" }, check: success };
    case 10:
      return { kind: "list_notes", message: toolCall("list_notes", {}, i), check: success };
    default:
      return {
        kind: "batch",
        message: [
          { jsonrpc: "2.0", id: `${i}-ping`, method: "ping" },
          toolCall("get_ticket", { id: "T-1001" }, `${i}-t`),
        ],
        check: (a) => {
          if (!Array.isArray(a) || a.length !== 2) return `expected 2 answers, got ${JSON.stringify(a).slice(0, 200)}`;
          return success(a[1]);
        },
      };
  }
}

const isRetryableToolError = (a: unknown) => {
  const answers = Array.isArray(a) ? a : [a];
  return answers.some(
    (x: RpcAnswer) => x.result?.isError && x.result._meta?.["toolshed.dev/error"]?.retryable === true,
  );
};

function classify(call: MixedCall, answer: HttpAnswer): { outcome: Outcome; detail?: string } {
  if (answer.status === 503) {
    const ok =
      Number(answer.headers["retry-after"]) > 0 &&
      (answer.json as { error?: { message?: string } })?.error?.message ===
        "Service Unavailable: the server is shutting down";
    return ok ? { outcome: "shutting-down" } : { outcome: "protocol-failure", detail: `503 ${answer.text}` };
  }
  if (answer.status !== 200 || answer.json === undefined) {
    return { outcome: "protocol-failure", detail: `${answer.status} ${answer.text.slice(0, 300)}` };
  }
  const failure = call.check(answer.json);
  if (failure === undefined) return { outcome: "ok" };
  if (isRetryableToolError(answer.json)) return { outcome: "retryable-error", detail: failure };
  return { outcome: "protocol-failure", detail: failure };
}

/**
 * Runs `total` mixed calls with `concurrency` at once over keep-alive connections. Every call is
 * made exactly once, so the run ends by itself whatever the server does.
 */
export async function runMixedLoad(options: {
  url: string;
  run: string;
  total: number;
  concurrency: number;
  /** Called after each answer with the number done so far. */
  onProgress?: (done: number) => void;
  /** Only these calls of the run (a retry of the ones that got no answer); all by default. */
  indices?: readonly number[];
}): Promise<{ records: CallRecord[]; acknowledged: Acknowledged[]; elapsedMs: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const records: CallRecord[] = [];
  const acknowledged: Acknowledged[] = [];
  const indices = options.indices ?? Array.from({ length: options.total }, (_, i) => i);
  let next = 0;
  const started = Date.now();
  const worker = async () => {
    for (let at = next++; at < indices.length; at = next++) {
      const i = indices[at] as number;
      const call = mixedCall(options.run, i);
      const record: CallRecord = { index: i, kind: call.kind, outcome: "protocol-failure" };
      try {
        const answer = await post(options.url, call.message, {}, { agent, timeoutMs: 120_000 });
        Object.assign(record, classify(call, answer));
        if (call.create) {
          record.create = { kind: call.create.kind, title: call.create.title, key: "" };
          if (record.outcome === "ok") {
            const result = (answer.json as RpcAnswer).result?.structuredContent ?? {};
            record.create.key = call.create.keyOf(result);
            acknowledged.push({ kind: call.create.kind, key: record.create.key });
          }
        }
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        const clean = code === "ECONNREFUSED" || code === "ECONNRESET" || code === "EPIPE";
        record.outcome = clean ? "no-connection" : "protocol-failure";
        record.detail = `${code ?? ""} ${(error as Error).message}`;
        if (call.create) record.create = { kind: call.create.kind, title: call.create.title, key: "" };
      }
      records.push(record);
      options.onProgress?.(records.length);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  agent.destroy();
  return { records, acknowledged, elapsedMs: Date.now() - started };
}

export function countBy<T>(items: readonly T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}
