// What every answer must look like (CONTRACT.md C6-C12), as checks that return problems
// instead of throwing, so a fuzz failure lists all of them at once.
import { ERROR_META_KEY } from "@toolshed/errors";

const KINDS = new Set(["validation", "tool", "internal"]);

type Obj = Record<string, unknown>;

function isObj(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Paths of this machine: the top folder of the working directory (`/work/`, `/home/`) and the temp folder. */
function machinePaths(): Array<[string, RegExp]> {
  const out: Array<[string, RegExp]> = [["a temporary path", /(?<![\w.:/])\/tmp\//]];
  const top = /^\/[^/]+\//.exec(process.cwd())?.[0];
  if (top !== undefined && top !== "/tmp/") {
    out.push([`a server path under ${top}`, new RegExp(`(?<![\\w.:/])${escapeRegExp(top)}`)]);
  }
  return out;
}

/** Text that must never reach a client, unless the request itself carried it. */
const LEAK_PATTERNS: Array<[string, RegExp]> = [
  ["a stack frame", / {4}at /],
  ...machinePaths(),
  ["node_modules", /node_modules/],
  ["a source location", /\.[cm]?[jt]s:\d+/],
  // What database drivers say when a query goes wrong: SQL text and schema names.
  ["an SQLite error code", /\bSQLITE_[A-Z_]+\b/],
  ["an SQL syntax error", /near "[^"]*": syntax error|syntax error at or near/],
  ["a database schema name", /no such (?:table|column)|relation "[^"]*" does not exist/],
  ["a database constraint", /(?:UNIQUE|NOT NULL|FOREIGN KEY|CHECK) constraint failed|violates [\w -]*constraint/],
];

/** Internal details in an answer that the request did not itself contain. */
export function leaksIn(answerText: string, requestText: string, secrets: readonly string[] = []): string[] {
  const problems: string[] = [];
  for (const [what, pattern] of LEAK_PATTERNS) {
    if (pattern.test(answerText) && !pattern.test(requestText)) problems.push(`answer contains ${what}`);
  }
  for (const secret of secrets) {
    if (answerText.includes(secret)) problems.push(`answer contains the secret ${secret}`);
  }
  return problems;
}

/** A JSON-RPC 2.0 response: jsonrpc, an id, exactly one of result and error, a well-formed error. */
export function responseProblems(message: unknown): string[] {
  if (!isObj(message)) return [`answer is not an object: ${JSON.stringify(message)}`];
  const problems: string[] = [];
  if (message.jsonrpc !== "2.0") problems.push(`jsonrpc is ${JSON.stringify(message.jsonrpc)}`);
  const id = message.id;
  if (!(id === null || typeof id === "string" || typeof id === "number"))
    problems.push("id is missing or not a string/number/null");
  const hasResult = "result" in message;
  const hasError = "error" in message;
  if (hasResult === hasError) problems.push("answer needs exactly one of result and error");
  if (hasError) {
    const error = message.error;
    if (!isObj(error) || !Number.isInteger(error.code) || typeof error.message !== "string") {
      problems.push(`malformed error ${JSON.stringify(error)}`);
    }
  } else if (!isObj(message.result)) problems.push("result is not an object");
  else if (id === null) problems.push("a result answers id null");
  return problems;
}

export interface ToolCallExpectation {
  tool: string;
  /** The arguments break the published schema, so the answer must be C6 invalid arguments. */
  invalid: boolean;
}

/**
 * A tools/call answer: a result (C1/C2), or an isError result with the error class (C6-C9);
 * never an internal error for anything a client sent (that would be a server bug the fuzzer found).
 */
export function toolResultProblems(message: unknown, expect: ToolCallExpectation): string[] {
  const base = responseProblems(message);
  if (base.length > 0) return base;
  const answer = message as Obj;
  if ("error" in answer) {
    const code = (answer.error as Obj).code;
    return [`tools/call answered with a JSON-RPC error ${code}: ${JSON.stringify(answer.error)}`];
  }
  const result = answer.result as Obj;
  const problems: string[] = [];
  if (!Array.isArray(result.content)) problems.push("result.content is not an array");
  if (result.isError === true) {
    const meta = isObj(result._meta) ? result._meta[ERROR_META_KEY] : undefined;
    if (!isObj(meta)) return [...problems, `error result without _meta["${ERROR_META_KEY}"]`];
    if (!KINDS.has(meta.kind as string)) problems.push(`error kind ${JSON.stringify(meta.kind)}`);
    if (typeof meta.code !== "string") problems.push("error code is not a string");
    if (typeof meta.retryable !== "boolean") problems.push("retryable is not a boolean");
    const text = (result.content as Obj[] | undefined)?.[0]?.text;
    if (typeof text !== "string") problems.push("error result without a text block");
    if (meta.kind === "internal") problems.push(`internal error for a client's input: ${text}`);
    if (expect.invalid) {
      if (meta.kind !== "validation" || meta.code !== "invalid_arguments") {
        problems.push(`schema-breaking arguments answered ${meta.kind}/${meta.code}, not validation/invalid_arguments`);
      }
      if (typeof text === "string" && !text.startsWith(`Invalid arguments for tool ${expect.tool}:`)) {
        problems.push(`invalid-arguments text starts ${JSON.stringify(text.slice(0, 80))}`);
      }
      if (meta.retryable !== false) problems.push("invalid arguments marked retryable");
    }
    if (meta.retryable === true && typeof text === "string" && !/retry/i.test(text)) {
      problems.push("retryable error without a retry hint");
    }
    const batch = isObj(result.structuredContent) && "failed_count" in result.structuredContent;
    if (result.structuredContent !== undefined && !batch) problems.push("error result carries structuredContent");
  } else {
    if (expect.invalid) problems.push("schema-breaking arguments were accepted");
    if (result.structuredContent !== undefined && !isObj(result.structuredContent)) {
      problems.push("structuredContent is not an object");
    }
  }
  return problems;
}
