import { AssertionError } from "node:assert";
import { ERROR_META_KEY, type ErrorCode, type ErrorInfo, type ValidationIssue } from "@toolshed/errors";

// Assertions for tool results that work with any test runner: each throws an AssertionError
// whose message says what was expected and shows the result.

type Obj = Record<string, unknown>;

const isObj = (value: unknown): value is Obj => typeof value === "object" && value !== null && !Array.isArray(value);

const MAX_SHOWN = 2_000;

function show(result: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(result, null, 2) ?? String(result);
  } catch {
    text = String(result);
  }
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}… (${text.length - MAX_SHOWN} more characters)` : text;
}

// biome-ignore lint/complexity/noBannedTypes: the assertion to cut from the stack
function fail(message: string, result: unknown, stackStartFn: Function): never {
  throw new AssertionError({ message: `${message}\nresult: ${show(result)}`, actual: result, stackStartFn });
}

/** The text of a result's text blocks, joined by newlines. */
export function resultText(result: unknown): string {
  const content = isObj(result) && Array.isArray(result.content) ? result.content : [];
  return content
    .filter((block): block is { text: string } => isObj(block) && typeof block.text === "string")
    .map((block) => block.text)
    .join("\n");
}

/** What is wrong with the shape of a CallToolResult, in either outcome. */
function shapeProblem(result: unknown): string | undefined {
  if (!isObj(result)) return "a tool result must be an object";
  if (!Array.isArray(result.content)) return "a tool result needs a content array";
  for (const [i, block] of result.content.entries()) {
    if (!isObj(block) || typeof block.type !== "string") return `content[${i}] has no type`;
    if (block.type === "text" && typeof block.text !== "string") return `content[${i}] is a text block without text`;
  }
  if (result.isError !== undefined && typeof result.isError !== "boolean") return "isError must be a boolean";
  return undefined;
}

/**
 * Checks that a tool call succeeded with a well-formed result and returns its structured content
 * (C1, C2: a value that is not an object arrives as `{result: value}`).
 */
export function expectToolResult<T = Record<string, unknown>>(result: unknown): T {
  const problem = shapeProblem(result);
  if (problem) fail(`Expected a tool result: ${problem}.`, result, expectToolResult);
  const r = result as Obj;
  if (r.isError === true) {
    fail(`Expected a successful tool result, got an error: ${resultText(r)}`, result, expectToolResult);
  }
  if (isObj(r._meta) && r._meta[ERROR_META_KEY] !== undefined) {
    fail(`Expected a successful tool result, but it carries _meta["${ERROR_META_KEY}"].`, result, expectToolResult);
  }
  if (!isObj(r.structuredContent)) {
    const got = r.structuredContent === undefined ? "none" : JSON.stringify(r.structuredContent);
    fail(`Expected a tool result with an object as structuredContent, got ${got}.`, result, expectToolResult);
  }
  return r.structuredContent as T;
}

export interface ExpectToolErrorOptions {
  /** The error code, e.g. `"not_found"` (C9). */
  code?: ErrorCode | (string & {});
  /** Whether the same call may succeed later. */
  retryable?: boolean;
  /** `validation`, `tool` or `internal`. */
  kind?: ErrorInfo["kind"];
  /** Text the error message contains (a string) or matches (a RegExp). */
  message?: string | RegExp;
}

/** An error result's class (`_meta["toolshed.dev/error"]`) and its text. */
export interface ToolErrorDetails extends ErrorInfo {
  /** The text the model reads, e.g. `Error executing tool get_note: No note 'x'. Known titles: ...`. */
  text: string;
}

const KINDS = new Set(["validation", "tool", "internal"]);

// biome-ignore lint/complexity/noBannedTypes: the assertion to cut from the stack
function checkToolError(result: unknown, options: ExpectToolErrorOptions, caller: Function): ToolErrorDetails {
  const problem = shapeProblem(result);
  if (problem) fail(`Expected a tool error result: ${problem}.`, result, caller);
  const r = result as Obj;
  if (r.isError !== true)
    fail("Expected a tool error result (isError: true), got a successful result.", result, caller);
  const text = resultText(r);
  if (text === "") fail("Expected a tool error result with a text block saying what went wrong.", result, caller);
  const info = isObj(r._meta) ? r._meta[ERROR_META_KEY] : undefined;
  if (!isObj(info)) fail(`Expected the error class in _meta["${ERROR_META_KEY}"] (C9), found none.`, result, caller);
  if (!KINDS.has(info.kind as string) || typeof info.code !== "string" || typeof info.retryable !== "boolean") {
    fail(
      `Expected _meta["${ERROR_META_KEY}"] to hold {kind, code, retryable}, got ${JSON.stringify(info)}.`,
      result,
      caller,
    );
  }
  const batch = isObj(r.structuredContent) && "failed_count" in r.structuredContent;
  if (r.structuredContent !== undefined && !batch) {
    fail("An error result must not carry structuredContent (C9).", result, caller);
  }
  const got = `${info.kind}/${info.code}${info.retryable ? ", retryable" : ""}: ${text}`;
  if (options.code !== undefined && info.code !== options.code) {
    fail(`Expected a tool error with code ${options.code}, got ${got}`, result, caller);
  }
  if (options.kind !== undefined && info.kind !== options.kind) {
    fail(`Expected a tool error of kind ${options.kind}, got ${got}`, result, caller);
  }
  if (options.retryable !== undefined && info.retryable !== options.retryable) {
    fail(`Expected a tool error that is ${options.retryable ? "" : "not "}retryable, got ${got}`, result, caller);
  }
  const wanted = options.message;
  if (wanted !== undefined && !(typeof wanted === "string" ? text.includes(wanted) : wanted.test(text))) {
    fail(
      `Expected the error text to ${typeof wanted === "string" ? "contain" : "match"} ${wanted}, got ${got}`,
      result,
      caller,
    );
  }
  return { ...(info as unknown as ErrorInfo), text };
}

/** Checks that a tool call failed with a well-formed tool error (C8, C9) and returns its class and text. */
export function expectToolError(result: unknown, options: ExpectToolErrorOptions = {}): ToolErrorDetails {
  return checkToolError(result, options, expectToolError);
}

/** `limit`, `filters.tags[0]`, or the same as an array path (`["filters", "tags", 0]`). */
export type ArgumentPath = string | readonly (string | number)[];

function pathText(path: ArgumentPath): string {
  if (typeof path === "string") return path;
  let out = "";
  for (const part of path) out += typeof part === "number" ? `[${part}]` : out === "" ? part : `.${part}`;
  return out;
}

/**
 * Checks that a tool call was refused for invalid arguments (C6: kind validation, code
 * invalid_arguments, not retryable, text `Invalid arguments for tool <name>:`) with a hint for
 * the argument at `path`, and returns that issue.
 */
export function expectInvalidArguments(result: unknown, path: ArgumentPath): ValidationIssue {
  const error = checkToolError(
    result,
    { kind: "validation", code: "invalid_arguments", retryable: false },
    expectInvalidArguments,
  );
  if (!/^Invalid arguments for tool [^:\s]+:\n/.test(error.text)) {
    fail(
      `Expected the text to start "Invalid arguments for tool <name>:" and a line per problem (C6), got: ${error.text}`,
      result,
      expectInvalidArguments,
    );
  }
  const at = pathText(path);
  const lines = error.text.split("\n").slice(1);
  const issue =
    error.issues?.find((i) => i.path === at) ??
    lines
      .filter((line) => (at === "" ? !/^[\w.[\]]+: /.test(line) : line.startsWith(`${at}: `)))
      .map((line) => ({ path: at, message: at === "" ? line : line.slice(at.length + 2) }))[0];
  if (!issue) {
    const named = error.issues?.map((i) => i.path || "(the arguments)") ?? lines;
    fail(
      `Expected an invalid-arguments hint for ${at || "the arguments object"}, got hints for ${named.join(", ")}`,
      result,
      expectInvalidArguments,
    );
  }
  if (issue.message.trim() === "" || /^invalid input\.?$/i.test(issue.message.trim())) {
    fail(
      `Expected a hint for ${at} that says what was wrong and what would work, got "${issue.message}"`,
      result,
      expectInvalidArguments,
    );
  }
  return issue;
}
