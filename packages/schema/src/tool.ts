import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { StandardSchemaV1 } from "@standard-schema/spec";
import type { ValidationIssue } from "@toolshed/errors";
import { batchToolResult } from "@toolshed/errors";
import { isBatchResult } from "@toolshed/errors/internal";
import type { z } from "zod";
import type { ParseOptions, ParseResult } from "./arguments.js";
import { checkInputDescriptions, checkName, checkText, checkTimeout } from "./checks.js";
import type { ToolContext } from "./context.js";
import { DefinitionError } from "./definition-error.js";
import { coercesHeaderParam, type HeaderParam, headerParams, headerPaths } from "./headers.js";
import { toValidationIssues } from "./hints.js";
import { isObjectSchema, type JsonSchema, wrapResultSchema } from "./json-schema.js";
import type { JsonSchemaInput } from "./json-schema-input.js";
import { checkListingExtras, type Icon, type ListingExtras } from "./listing-extras.js";
import {
  compileObjectInput,
  compileOther,
  DESCRIBE,
  type InputValues,
  isZod,
  type ObjectInput,
  type ObjectSchema,
  type SchemaKind,
  zodSchemaFor,
} from "./object-input.js";
import { checkRequiredScopes, type RequiredScopes } from "./scopes.js";

const FULL_RESULT_BRAND = Symbol.for("toolshed.dev/FullResult");

/** A complete tool result returned as is (C4): images, audio, resources, links, structured content. */
export type FullResult = CallToolResult & { readonly [FULL_RESULT_BRAND]: true };

/** Marks a complete `CallToolResult` to be sent as it is (C4); structured content is still checked (C3). */
export function fullResult(result: CallToolResult): FullResult {
  Object.defineProperty(result, FULL_RESULT_BRAND, { value: true });
  return result as FullResult;
}

export function isFullResult(value: unknown): value is FullResult {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[FULL_RESULT_BRAND] === true;
}

export type { ToolAnnotations };

type MaybePromise<T> = T | Promise<T>;

/** A tool's arguments: any object input (Zod, JSON Schema document, Standard Schema). */
export type ToolInput = ObjectInput;

/** A tool's result schema: any Zod schema, JSON Schema document or Standard Schema (C1, C2). */
// biome-ignore lint/suspicious/noExplicitAny: any Standard Schema, whatever its types
export type ToolOutput = z.ZodType | JsonSchemaInput<any> | StandardSchemaV1<any, any> | JsonSchema;

/** The arguments a handler gets for an input schema. */
export type ToolArgs<I> = InputValues<I>;

/** What a handler may return: a value of the output schema, or a full result (C4). */
export type ToolReturn<O> = O extends z.ZodType
  ? z.input<O> | FullResult
  : O extends JsonSchemaInput<infer T>
    ? T | FullResult
    : O extends StandardSchemaV1<infer In, unknown>
      ? In | FullResult
      : unknown;

export interface ToolConfig<I extends ToolInput, O extends ToolOutput | undefined> extends ListingExtras {
  /** `^[A-Za-z0-9._-]{1,128}$`, unique in a server (C13). */
  name: string;
  title?: string;
  /** What the tool does and when to use it, written for the model. */
  description: string;
  /**
   * Arguments: a Zod object, a JSON Schema document or a Standard Schema (see ToolInput); every
   * property has a description (C5, C13).
   */
  input: I;
  /** Result: an object is sent as is (C1), anything else wrapped as `{result}` (C2). */
  output?: O;
  annotations?: Omit<ToolAnnotations, "title">;
  /** Per-tool call timeout; overrides the server's. */
  timeoutMs?: number;
  /**
   * OAuth scopes a caller's token must all hold to see and call this tool (RFC 6749 scope tokens);
   * its pack's scopes apply too. Callers without a token (a local server) are not checked.
   */
  requiredScopes?: RequiredScopes;
  /**
   * Lax coercion of arguments that fail as sent (default true): `"5"` for a number, `"true"` for a
   * boolean, a JSON string for an object or array, an enum value or an argument name in another
   * case, wherever only one reading is possible. The published schema does not change.
   */
  coerce?: boolean;
  /**
   * Whether a call may run as a task of the `io.modelcontextprotocol/tasks` extension (2026-07-28):
   * `"forbidden"` (default) always answers in the call; `"optional"` becomes a task when the
   * request declares the extension and answers in the call otherwise; `"required"` becomes a task
   * and refuses a request without the extension (-32021). Nothing of it is published in tools/list.
   * `{ mode, start: "handler" }`: the task is made when the handler calls `ctx.startTask()`, so
   * questions asked before it are input rounds of the call itself (2026-07-28 MRTR).
   */
  task?: TaskMode | TaskConfig;
  handler: (args: ToolArgs<I>, ctx: ToolContext) => MaybePromise<ToolReturn<O>>;
}

/** How a tool runs under the tasks extension (ToolConfig.task). */
export type TaskMode = "forbidden" | "optional" | "required";

/** ToolConfig.task with when the task is made. */
export interface TaskConfig {
  mode: TaskMode;
  /**
   * `"call"` (default): the task is made before the handler runs. `"handler"`: when the handler
   * calls `ctx.startTask()`; a handler that returns without calling it answers in the call.
   */
  start?: TaskStart;
}

/** When a task is made (TaskConfig.start). */
export type TaskStart = "call" | "handler";

const TASK_MODES: readonly TaskMode[] = ["forbidden", "optional", "required"];

/** Which kind of schema a tool's input is written in. */
export type { SchemaKind };

/** A handler's value checked against the output schema: what to send, or why it broke the schema. */
export type OutputCheck = { ok: true; data: unknown } | { ok: false; problem: string };

export interface ToolDefinition<
  I extends ToolInput = ToolInput,
  O extends ToolOutput | undefined = ToolOutput | undefined,
> {
  readonly kind: "tool";
  readonly name: string;
  readonly title: string | undefined;
  readonly description: string;
  readonly input: I;
  readonly output: O;
  readonly annotations: ToolAnnotations;
  readonly timeoutMs: number | undefined;
  /** Scopes a token needs for this tool (its pack's apply too); [] when none. */
  readonly requiredScopes: RequiredScopes;
  /** Icons published in tools/list. */
  readonly icons?: readonly Icon[];
  /** Metadata published in tools/list as `_meta`. */
  readonly _meta?: Readonly<Record<string, unknown>>;
  /** Published input JSON Schema (C5). */
  readonly inputSchema: JsonSchema & { type: "object" };
  /** Published output JSON Schema, wrapped for non-object results (C2). */
  readonly outputSchema: (JsonSchema & { type: "object" }) | undefined;
  /** True when results are published as `{result: value}` (C2). */
  readonly wrapsOutput: boolean;
  readonly handler: (args: ToolArgs<I>, ctx: ToolContext) => MaybePromise<ToolReturn<O>>;
  /** Zod, JSON Schema or Standard Schema: what `input` is written in. */
  readonly schemaKind: SchemaKind;
  /** Parameters marked `x-mcp-header`: a 2026-07-28 HTTP client repeats them as `Mcp-Param-{name}` headers. */
  readonly headerParams: readonly HeaderParam[];
  /** Checks a handler's value against the output schema (C3); `data` is what is sent. */
  checkOutput(value: unknown): OutputCheck;
  /** The tool's entry for tools/list. */
  readonly listing: ToolListing;
  /** Whether arguments that fail as sent are coerced where unambiguous (ToolConfig.coerce). */
  readonly coerce: boolean;
  /** How a call runs under the tasks extension (ToolConfig.task; default "forbidden"). */
  readonly task: TaskMode;
  /** When the task is made: before the handler runs, or when it calls `ctx.startTask()`. */
  readonly taskStart: TaskStart;
  /**
   * Validates arguments (C6); the handler is only called with `data` of a success. Coercion follows
   * the tool's `coerce`; `{ coerce: false }` turns it off for this call (a server that does not coerce).
   */
  parseArguments(args: unknown, options?: ParseOptions): ParseResult<ToolArgs<I>>;
}

/** One entry of tools/list. */
export interface ToolListing {
  [key: string]: unknown;
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonSchema & { type: "object" };
  outputSchema?: JsonSchema & { type: "object" };
  annotations?: ToolAnnotations;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
}

const COERCE: ParseOptions = Object.freeze({ coerce: true });
const STRICT: ParseOptions = Object.freeze({ coerce: false });

/** Defines a tool from its schemas; checks it now (C13) and infers handler types from them. */
export function defineTool<I extends ToolInput, O extends ToolOutput | undefined = undefined>(
  config: ToolConfig<I, O>,
): ToolDefinition<I, O> {
  const label = `Tool "${config.name}"`;
  checkName(label, config.name);
  checkText(label, "description", config.description);
  if (config.title !== undefined) checkText(label, "title", config.title);
  checkTimeout(label, config.timeoutMs);
  const requiredScopes = checkRequiredScopes(label, config.requiredScopes);
  if (typeof config.handler !== "function") throw new DefinitionError(label, "C13", "handler must be a function");
  if (config.coerce !== undefined && typeof config.coerce !== "boolean") {
    throw new DefinitionError(label, "C13", "coerce must be true or false (lax coercion of arguments, default true)");
  }
  const task = checkTask(label, config.task);
  const coerce = config.coerce !== false;
  const input = compileObjectInput(label, "input", "query", config.input);
  checkInputDescriptions(label, input.published, DESCRIBE[input.kind]);
  const headers = headerParams(label, input.published);
  // Header parameters are never coerced (coercesHeaderParam).
  const pinned = headerPaths(headers);
  let output: OutputOf | undefined;
  if (config.output !== undefined) output = outputOf(label, config.name, config.output);
  const annotations: ToolAnnotations = { ...config.annotations };
  if (config.title !== undefined) annotations.title = config.title;
  const inputSchema = input.published;
  const extras = checkListingExtras(label, config);
  const listing: ToolListing = { name: config.name, description: config.description, inputSchema };
  if (config.title !== undefined) listing.title = config.title;
  if (extras.icons) listing.icons = extras.icons;
  if (output) listing.outputSchema = output.published;
  if (Object.keys(annotations).length > 0) listing.annotations = annotations;
  if (extras._meta) listing._meta = extras._meta;
  const wrapsOutput = output?.wraps ?? false;
  const check = output?.check;
  return Object.freeze({
    kind: "tool" as const,
    name: config.name,
    title: config.title,
    description: config.description,
    input: config.input,
    output: config.output as O,
    annotations,
    timeoutMs: config.timeoutMs,
    requiredScopes,
    ...extras,
    inputSchema,
    outputSchema: output?.published,
    wrapsOutput,
    handler: config.handler,
    schemaKind: input.kind,
    headerParams: headers,
    checkOutput: (value: unknown): OutputCheck => (check === undefined ? { ok: true, data: value } : check(value)),
    listing,
    coerce,
    task: task.mode,
    taskStart: task.start ?? "call",
    parseArguments: (args: unknown, options?: ParseOptions) => {
      const parsed = input.parse(args, coerce && options?.coerce !== false ? COERCE : STRICT);
      if (parsed.success && parsed.coercions !== undefined && coercesHeaderParam(parsed.coercions, pinned)) {
        return input.parse(args, STRICT) as ParseResult<ToolArgs<I>>;
      }
      return parsed as ParseResult<ToolArgs<I>>;
    },
  });
}

interface OutputOf {
  published: ObjectSchema;
  wraps: boolean;
  check(value: unknown): OutputCheck;
}

function outputOf(label: string, name: string, schema: unknown): OutputOf {
  if (isZod(schema)) {
    const raw = zodSchemaFor(label, schema, "output");
    const wraps = !isObjectSchema(raw);
    return {
      published: (wraps ? wrapResultSchema(raw) : raw) as ObjectSchema,
      wraps,
      check: (value) => checkZodOutput(name, schema, value),
    };
  }
  const other = compileOther(label, schema, "output");
  if (other === undefined) {
    throw new DefinitionError(
      label,
      "C5",
      "output must be a Zod schema, a JSON Schema document or a Standard Schema with JSON Schema (ArkType, Valibot through toStandardJsonSchema)",
    );
  }
  const wraps = !isObjectSchema(other.published);
  return {
    published: (wraps ? wrapResultSchema(other.published) : other.published) as ObjectSchema,
    wraps,
    check: (value) => {
      const { issues, data } = other.issues(value);
      if (issues.length === 0) return { ok: true, data };
      return { ok: false, problem: outputProblem(name, issues) };
    },
  };
}

function outputProblem(name: string, issues: readonly ValidationIssue[]): string {
  const lines = issues.map((i) => `${i.path || "(result)"}: ${i.message}`);
  return `output of tool ${name} does not match its output schema: ${lines.join("; ")}`;
}

export type TextFormat = "pretty" | "compact";

function toJsonText(value: unknown, format: TextFormat): string {
  return format === "compact" ? JSON.stringify(value) : JSON.stringify(value, null, 2);
}

/** A result that is ready to send, or an output that broke the schema (a server fault, C3). */
export type ShapedResult = { ok: true; result: CallToolResult } | { ok: false; problem: string };

/**
 * Turns what a handler returned into the result the client sees: C1 objects, C2 wrapped values,
 * C3 output checked against the schema, C4 full results, C11 batches.
 */
export function shapeToolResult(tool: ToolDefinition, value: unknown, format: TextFormat = "pretty"): ShapedResult {
  if (isFullResult(value)) {
    const { structuredContent } = value;
    const result: CallToolResult = { ...value };
    if (structuredContent !== undefined && tool.output !== undefined) {
      const check = tool.checkOutput(
        tool.wrapsOutput ? (structuredContent as { result?: unknown }).result : structuredContent,
      );
      if (!check.ok) return check;
      // Send what the schema let through, not extra keys it stripped (C3).
      result.structuredContent = (tool.wrapsOutput ? { result: check.data } : check.data) as Record<string, unknown>;
    }
    return { ok: true, result };
  }
  if (tool.output === undefined) {
    if (isBatchResult(value)) return { ok: true, result: batchToolResult(value, { pretty: format === "pretty" }) };
    const text = typeof value === "string" ? value : value === undefined ? "" : toJsonText(value, format);
    return { ok: true, result: { content: [{ type: "text", text }] } };
  }
  const checked = tool.checkOutput(value);
  if (!checked.ok) return checked;
  if (isBatchResult(value) && !tool.wrapsOutput) {
    const batch = batchToolResult(value, { pretty: format === "pretty" });
    return { ok: true, result: { ...batch, structuredContent: checked.data as Record<string, unknown> } };
  }
  if (tool.wrapsOutput) {
    const data = checked.data;
    const text = typeof data === "string" ? data : toJsonText(data, format);
    return { ok: true, result: { content: [{ type: "text", text }], structuredContent: { result: data } } };
  }
  return {
    ok: true,
    result: {
      content: [{ type: "text", text: toJsonText(checked.data, format) }],
      structuredContent: checked.data as Record<string, unknown>,
    },
  };
}

function checkZodOutput(name: string, schema: z.ZodType, value: unknown): OutputCheck {
  const parsed = schema.safeParse(value);
  if (parsed.success && parsed.data !== undefined) return { ok: true, data: parsed.data };
  if (parsed.success) {
    // JSON has no undefined: a schema that allows "nothing" is sent as null when it allows that.
    if (schema.safeParse(null).success) return { ok: true, data: null };
    return { ok: false, problem: `tool ${name} returned nothing, but its output schema needs a value` };
  }
  return { ok: false, problem: outputProblem(name, toValidationIssues(parsed.error.issues)) };
}

function checkTask(label: string, task: TaskMode | TaskConfig | undefined): TaskConfig {
  const config = typeof task === "object" && task !== null ? task : { mode: task ?? "forbidden" };
  if (!TASK_MODES.includes(config.mode)) {
    throw new DefinitionError(
      label,
      "C13",
      `task must be "forbidden", "optional" or "required", or { mode, start } (got ${JSON.stringify(task)}); leave it out for a tool that always answers in the call`,
    );
  }
  if (config.start !== undefined && config.start !== "call" && config.start !== "handler") {
    throw new DefinitionError(
      label,
      "C13",
      `task.start must be "call" (the task is made before the handler runs) or "handler" (when it calls ctx.startTask()); got ${JSON.stringify(config.start)}`,
    );
  }
  return config;
}
