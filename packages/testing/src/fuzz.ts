import { Writable } from "node:stream";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { Logger, Pack } from "@toolshed/schema";
import { createLogger } from "@toolshed/server";
import fc from "fast-check";
import { leaksIn, toolResultProblems } from "./answer-checks.js";
import { connectPack, type PackConnection, PROTOCOL_ERAS, type ProtocolEra, type RpcAnswer } from "./connect.js";
import type { JsonSchema } from "./json-schema-arb.js";
import { argsCases } from "./mutate-args.js";

export interface FuzzPackOptions {
  /** Generated calls in all (default 100, or `TOOLSHED_FUZZ_RUNS`); each tool is also called once with no arguments. */
  runs?: number;
  /** The same seed makes the same calls in the same order (default `TOOLSHED_FUZZ_SEED`, else random; always reported). */
  seed?: number;
  /** Also fuzz tools not marked `readOnlyHint: true` (default false): they will write to the pack's store. */
  allowWrites?: boolean;
  /** A call that has not answered after this many ms is a failure (default 10 000). */
  timeoutMs?: number;
  /** The protocol eras calls are made in, picked per call (default both). */
  eras?: readonly ProtocolEra[];
  /** Only these tools (default: every tool the pack publishes, within `allowWrites`). */
  tools?: readonly string[];
  /** Strings your data holds (titles, ids), mixed into generated strings so calls hit real rows. */
  knownValues?: readonly string[];
  /** Text that must never reach a client (a password, a connection string). */
  secrets?: readonly string[];
  /** Throw when a call fails a check (default true); false only returns the report. */
  throwOnFailure?: boolean;
  /** The server's logger (default: silent, but failures show what it logged about masked errors). */
  logger?: Logger;
}

/** One call that failed a check. */
export interface FuzzFailure {
  tool: string;
  era: ProtocolEra;
  /** What kind of case it was: `valid`, `limit: 1e308`, `extra key "__proto__"`, `arguments not an object`. */
  label: string;
  /** The arguments sent (undefined: none). */
  args: unknown;
  /** Every check it failed. */
  problems: string[];
  /** The answer, as JSON (shortened). */
  answer: string;
}

export interface FuzzReport {
  seed: number;
  /** Calls made. */
  runs: number;
  /** The tools fuzzed. */
  tools: string[];
  /** Tools left out because they may write (pass `allowWrites: true` to include them). */
  skipped: string[];
  /** How many calls were generated within the schema, breaking it, or with arguments that are not an object. */
  counts: { valid: number; breaking: number; notObject: number };
  failures: FuzzFailure[];
}

/** Thrown by fuzzPack when a call failed a check; carries the whole report. */
export class FuzzFailureError extends Error {
  readonly report: FuzzReport;
  constructor(message: string, report: FuzzReport) {
    super(message);
    this.name = "FuzzFailureError";
    this.report = report;
  }
}

type Case =
  | { kind: "args"; tool: string; era: ProtocolEra; label: string; args: unknown; breaks: boolean }
  | { kind: "notObject"; tool: string; era: ProtocolEra; label: string; args: unknown };

function envInt(name: string): number | undefined {
  const raw = process.env[name]?.trim();
  if (!raw) return undefined;
  const value = Number(raw);
  if (!Number.isSafeInteger(value)) throw new Error(`${name} must be an integer (got "${raw}")`);
  return value;
}

const MAX_SHOWN = 600;
const shorten = (text: string) => (text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text);
const showArgs = (args: unknown) => (args === undefined ? "(none)" : shorten(JSON.stringify(args) ?? String(args)));

const notObjectArb = fc.oneof(
  fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
  fc.string({ maxLength: 20 }),
  // NaN and ±Infinity serialize as null, which counts as no arguments.
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
);

function casesFor(tools: Tool[], eras: readonly ProtocolEra[], known: readonly string[]): fc.Arbitrary<Case> {
  const knownValues = { strings: known };
  return fc.tuple(fc.constantFrom(...tools), fc.constantFrom(...eras)).chain(([tool, era]) =>
    fc.oneof(
      {
        weight: 12,
        arbitrary: argsCases(tool.inputSchema as JsonSchema, knownValues).map(
          (c): Case => ({ kind: "args", tool: tool.name, era, label: c.label, args: c.args, breaks: c.breaks }),
        ),
      },
      {
        weight: 1,
        arbitrary: notObjectArb.map(
          (args): Case => ({ kind: "notObject", tool: tool.name, era, label: "arguments not an object", args }),
        ),
      },
    ),
  );
}

/**
 * A silent logger that keeps what the server logged about masked errors, by reference id, so a
 * failure can show the exception behind `Error executing tool x (ref 1a2b3c4d)`.
 */
function errorLog(): { logger: Logger; byRef: Map<string, string> } {
  const byRef = new Map<string, string>();
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n")) {
        if (!line.trim()) continue;
        try {
          const entry = JSON.parse(line) as { ref?: unknown; err?: { stack?: unknown; message?: unknown } };
          const said = entry.err?.stack ?? entry.err?.message;
          if (typeof entry.ref === "string" && typeof said === "string") byRef.set(entry.ref, said);
        } catch {
          // Not a JSON line: nothing to index.
        }
      }
      done();
    },
  });
  return { logger: createLogger({ destination, level: "error" }), byRef };
}

/** The refs of masked errors in an answer. */
const refsIn = (answerText: string) => [...answerText.matchAll(/\(ref ([0-9a-f]+)\)/g)].map((m) => m[1] as string);

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | "timeout"> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Every check one call's answer must pass. */
async function check(
  conn: PackConnection,
  c: Case,
  outputChecks: Map<string, (value: unknown) => string | undefined>,
  options: { timeoutMs: number; secrets: readonly string[] },
): Promise<{ problems: string[]; answer: string }> {
  const params: Record<string, unknown> = c.args === undefined ? { name: c.tool } : { name: c.tool, arguments: c.args };
  let got: RpcAnswer | "timeout";
  try {
    got = await withTimeout(conn.answer("tools/call", params, { era: c.era }), options.timeoutMs);
  } catch (error) {
    return { problems: [`the call threw instead of answering: ${String(error)}`], answer: "" };
  }
  if (got === "timeout") return { problems: [`no answer within ${options.timeoutMs} ms`], answer: "" };
  const answer = got;
  const text = JSON.stringify(answer);
  const problems = leaksIn(text, JSON.stringify(params), options.secrets);
  if (c.kind === "notObject") {
    // null counts as no arguments; anything else that is not an object is a malformed request (C12).
    if (c.args !== null && !("error" in answer && answer.error.code === -32602)) {
      problems.push("arguments that are not an object must be answered with JSON-RPC error -32602 (C12)");
    }
    return { problems, answer: text };
  }
  problems.push(...toolResultProblems(answer, { tool: c.tool, invalid: c.breaks }));
  if (!("result" in answer)) return { problems, answer: text };
  const result = answer.result;
  const resultType = result.resultType;
  if (c.era === "2026-07-28" && resultType !== "complete" && resultType !== "input_required") {
    problems.push(`a 2026-07-28 result needs resultType "complete" (got ${JSON.stringify(resultType)})`);
  }
  if (c.era !== "2026-07-28" && resultType !== undefined) problems.push("a 2025 result carries resultType");
  const validate = outputChecks.get(c.tool);
  if (result.isError !== true && result.structuredContent !== undefined && validate) {
    const problem = validate(result.structuredContent);
    if (problem) problems.push(`structuredContent does not match the published outputSchema: ${problem}`);
  }
  return { problems, answer: text };
}

function summary(report: FuzzReport, runsAsked: number): string {
  const shown = report.failures.slice(0, 5);
  const lines = [
    `fuzzPack: ${report.failures.length} of ${report.runs} calls failed (seed ${report.seed}; replay with fuzzPack(pack, { seed: ${report.seed}, runs: ${runsAsked} }) or TOOLSHED_FUZZ_SEED=${report.seed})`,
  ];
  for (const f of shown) {
    lines.push(`- ${f.tool} (${f.label}, ${f.era} era) with arguments ${showArgs(f.args)}:`);
    for (const p of f.problems) lines.push(`    ${p}`);
    if (f.answer) lines.push(`    answer: ${shorten(f.answer)}`);
  }
  if (report.failures.length > shown.length) lines.push(`… and ${report.failures.length - shown.length} more`);
  return lines.join("\n");
}

/**
 * Calls a pack's tools with arguments generated from their published input schemas: values
 * within the schema, the same mutated (wrong types, missing and extra keys, numbers at and past
 * their bounds), hostile strings (query syntax, control characters, unicode, huge), and arguments
 * that are not an object. Every answer must be well-formed; arguments that break the schema must
 * be an invalid-arguments tool error (C6); nothing a client sends may cause an internal error
 * (C7), a JSON-RPC error (other than C12's), a leak (stack, path, SQL error) or structured
 * content outside the output schema. The same seed replays the same calls.
 */
export async function fuzzPack(pack: Pack | readonly Pack[], options: FuzzPackOptions = {}): Promise<FuzzReport> {
  const seed = options.seed ?? envInt("TOOLSHED_FUZZ_SEED") ?? Math.floor(Math.random() * 2 ** 31);
  const runs = options.runs ?? envInt("TOOLSHED_FUZZ_RUNS") ?? 100;
  const eras = options.eras && options.eras.length > 0 ? options.eras : PROTOCOL_ERAS;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const log = options.logger ? undefined : errorLog();
  const conn = await connectPack(pack, {
    closePacks: false,
    logger: options.logger ?? (log as { logger: Logger }).logger,
  });
  try {
    const listed = await conn.listTools();
    const wanted = options.tools ? new Set(options.tools) : undefined;
    if (wanted) {
      const unknown = [...wanted].filter((name) => !listed.some((t) => t.name === name));
      if (unknown.length > 0) throw new Error(`fuzzPack: no tool named ${unknown.join(", ")}`);
    }
    const chosen = listed.filter((t) => !wanted || wanted.has(t.name));
    const tools = chosen.filter((t) => options.allowWrites === true || t.annotations?.readOnlyHint === true);
    const skipped = chosen.filter((t) => !tools.includes(t)).map((t) => t.name);
    if (tools.length === 0) {
      throw new Error(
        `fuzzPack: nothing to fuzz: ${skipped.length > 0 ? `${skipped.join(", ")} may write (pass allowWrites: true to fuzz them)` : "the pack publishes no tools"}`,
      );
    }
    const validator = new AjvJsonSchemaValidator();
    const outputChecks = new Map<string, (value: unknown) => string | undefined>();
    for (const tool of tools) {
      if (!tool.outputSchema) continue;
      const validate = validator.getValidator(tool.outputSchema as never);
      outputChecks.set(tool.name, (value) => {
        const outcome = validate(value);
        return outcome.valid ? undefined : (outcome.errorMessage ?? "invalid");
      });
    }
    const report: FuzzReport = {
      seed,
      runs: 0,
      tools: tools.map((t) => t.name),
      skipped,
      counts: { valid: 0, breaking: 0, notObject: 0 },
      failures: [],
    };
    // Each tool once with no arguments in every era (a result, never a JSON-RPC error), then the generated calls.
    const cases: Case[] = tools.flatMap((t) =>
      eras.map(
        (era): Case => ({ kind: "args", tool: t.name, era, label: "no arguments", args: undefined, breaks: false }),
      ),
    );
    cases.push(...fc.sample(casesFor(tools, eras, options.knownValues ?? []), { seed, numRuns: runs }));
    for (const c of cases) {
      if (c.kind === "notObject") report.counts.notObject++;
      else if (c.label !== "no arguments") report.counts[c.breaks ? "breaking" : "valid"]++;
      const { problems, answer } = await check(conn, c, outputChecks, { timeoutMs, secrets: options.secrets ?? [] });
      report.runs++;
      if (problems.length > 0) {
        for (const ref of new Set(refsIn(answer))) {
          const logged = log?.byRef.get(ref);
          // The message and the first frames are enough to find the bug.
          const lines = logged
            ?.split("\n")
            .slice(0, 3)
            .map((l) => l.trim());
          if (lines) problems.push(`the server logged for ref ${ref}: ${lines.join("\n      ")}`);
        }
        report.failures.push({ tool: c.tool, era: c.era, label: c.label, args: c.args, problems, answer });
      }
    }
    if (report.failures.length > 0 && options.throwOnFailure !== false) {
      throw new FuzzFailureError(summary(report, runs), report);
    }
    return report;
  } finally {
    await conn.close();
  }
}
