import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import {
  ERROR_META_KEY,
  invalidArgumentsResult,
  PermissionDeniedError,
  toolErrorResult,
  toToolErrorResult,
} from "@toolshed/errors";
import type { AnyTool, AuthInfo, ToolListing } from "@toolshed/schema";
import { ACCESS_OK, type Access, insufficientScopeError } from "../access.js";
import { reportCoercions } from "../coercions.js";
import { InputRound } from "../input-round.js";
import { JsonRpcCode, JsonRpcError } from "../jsonrpc-error.js";
import {
  callContext,
  checkToolResult,
  INPUT_REQUIRED,
  type MiddlewareFrame,
  type MiddlewareStack,
  runChain,
} from "../middleware.js";
import { DEFAULT_MAX_RESULT_BYTES, jsonSizeOver, resultTooLarge } from "../result-size.js";
import { type CancelSignal, outcomeOf, runTool, type ToolBase } from "../run-tool.js";
import { unknownToolMessage } from "../unknown-tool-hint.js";
import type { RequestView, RuntimeParts, ToolCallOutcome, ToolOutcomeListener } from "./parts.js";

const NO_COERCION = { coerce: false } as const;

/** What one tools/call brings: `onOutcome` hears its outcome, `frame` runs it through middleware. */
export type ToolCall = [
  name: string,
  args: unknown,
  view: RequestView,
  base: ToolBase,
  signal?: CancelSignal,
  onOutcome?: ToolOutcomeListener,
  frame?: MiddlewareFrame,
  /** The caller's access to this tool when the transport already checked it (checked once per call). */
  checked?: Access,
  /** The time limit when the tool sets none, instead of the server's (a task's own). */
  timeoutMs?: number,
];

/** tools/list for this view and caller: read-only tools only for a read-only view (C14), and only what the caller may use. */
export function listTools(parts: RuntimeParts, view: RequestView, authInfo?: AuthInfo): ToolListing[] {
  const { registry, access } = parts;
  const listings = view.readOnly ? registry.toolListings.readOnly : registry.toolListings.all;
  if (!access.filtersByCaller) return listings;
  const tools = view.readOnly ? registry.listedTools.readOnly : registry.listedTools.all;
  const out: ToolListing[] = [];
  for (let i = 0; i < tools.length; i++) {
    if (access.visible(authInfo, tools[i] as AnyTool)) out.push(listings[i] as ToolListing);
  }
  return out;
}

/**
 * tools/call. Unknown tools, and tools hidden from this caller, are a protocol error (C12); so is a
 * tool whose scopes the caller's token lacks (-32003). Everything else is a result: invalid
 * arguments (C6), calls the view forbids (C14), and whatever the handler does. `onOutcome` hears
 * the outcome of every call answered with a result (what the "tool call" log line records).
 */
export async function callTool(parts: RuntimeParts, ...call: ToolCall): Promise<CallToolResult> {
  const [name, args, view, base, signal, onOutcome, frame, checked, timeoutMs] = call;
  const { options } = parts;
  const tool = toolFor(parts, name, view, base.authInfo, checked);
  const started = performance.now();
  let result = readOnlyRefusal(parts, tool, view, base.authInfo);
  if (result === undefined) {
    const parsed = tool.parseArguments(args, options.coerce === false ? NO_COERCION : undefined);
    if (parsed.success && parsed.coercions !== undefined) {
      reportCoercions(base.logger, name, parsed.coercions, options.telemetry !== false);
    }
    result = !parsed.success
      ? invalidArgumentsResult(name, parsed.issues)
      : frame === undefined
        ? await runTool(tool, parsed.data, base, signal, {
            timeoutMs: timeoutMs ?? options.timeoutMs ?? 30_000,
            textFormat: parts.textFormat,
            logger: base.logger,
          })
        : await runToolThrough(parts, frame, tool, parsed.data, base, signal, timeoutMs);
  }
  // Before the outcome is logged, so the log says what the client got.
  const maxBytes = options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
  if (maxBytes > 0) {
    const size = jsonSizeOver(result, maxBytes);
    if (size !== undefined) result = resultTooLarge(name, size, maxBytes);
  }
  // The request's logger: a transport may add its request id to every line.
  const logger = base.logger;
  const logs = logger.isLevelEnabled?.("info") !== false;
  if (!logs && onOutcome === undefined) return result;
  const outcome: ToolCallOutcome =
    signal instanceof InputRound && signal.needsInput ? "input_required" : outcomeOf(result);
  if (onOutcome !== undefined) {
    try {
      onOutcome(name, outcome);
    } catch (error) {
      logger.warn({ err: error, tool: name }, "onToolOutcome threw; the call's result is sent all the same");
    }
  }
  if (!logs) return result;
  const meta = result._meta?.[ERROR_META_KEY] as { code?: string; ref?: string } | undefined;
  logger.info(
    {
      tool: name,
      outcome,
      code: meta?.code,
      ref: meta?.ref,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
      requestId: base.requestId,
    },
    "tool call",
  );
  return result;
}

/**
 * What a call would answer before its handler runs: a protocol error (thrown) for an unknown,
 * hidden or forbidden tool; a tool error result for a read-only refusal or invalid arguments;
 * undefined when the handler would run. A task is made only for a call that passes this.
 */
export function refuseToolCall(
  parts: RuntimeParts,
  name: string,
  args: unknown,
  view: RequestView,
  authInfo: AuthInfo | undefined,
  checked?: Access,
): CallToolResult | undefined {
  const tool = toolFor(parts, name, view, authInfo, checked);
  const refusal = readOnlyRefusal(parts, tool, view, authInfo);
  if (refusal !== undefined) return refusal;
  const parsed = tool.parseArguments(args, parts.options.coerce === false ? NO_COERCION : undefined);
  return parsed.success ? undefined : invalidArgumentsResult(name, parsed.issues);
}

/** The tool this caller may call by that name; a protocol error otherwise (C12, -32003). */
function toolFor(
  parts: RuntimeParts,
  name: string,
  view: RequestView,
  authInfo: AuthInfo | undefined,
  checked: Access | undefined,
): AnyTool {
  const tool = parts.registry.tools.get(name);
  const access = tool === undefined ? ACCESS_OK : (checked ?? parts.access.accessTo(authInfo, tool));
  if (!tool || (!access.ok && access.hidden)) {
    // Names this caller can see only: a hidden tool is not even a "closest" match.
    throw new JsonRpcError(
      JsonRpcCode.InvalidParams,
      unknownToolMessage(
        name,
        listTools(parts, view, authInfo).map((t) => t.name),
      ),
    );
  }
  if (!access.ok) throw insufficientScopeError(`tools/call ${name}`, access, authInfo);
  return tool;
}

/** C14: a tool that changes data, called through a read-only view. */
function readOnlyRefusal(
  parts: RuntimeParts,
  tool: AnyTool,
  view: RequestView,
  authInfo: AuthInfo | undefined,
): CallToolResult | undefined {
  if (!view.readOnly || tool.annotations.readOnlyHint === true) return undefined;
  const allowed = listTools(parts, view, authInfo).map((t) => t.name);
  const why = parts.options.readOnly ? "this server is read-only" : "your credentials allow read-only tools only";
  return toolErrorResult(
    tool.name,
    new PermissionDeniedError(
      `${why}; ${tool.name} changes data. Read-only tools: ${allowed.length > 0 ? allowed.join(", ") : "none"}`,
    ),
  );
}

/**
 * A validated call through the tool-level middleware of the tool's pack. Runs after validation
 * (C6 answers never reach it) and around runTool, which never throws: a throw here is a
 * middleware's, answered like a handler's (a ToolError as a tool error, C8/C9; classified
 * failures, C10; anything else masked with a reference id and logged, C7).
 */
async function runToolThrough(
  parts: RuntimeParts,
  frame: MiddlewareFrame,
  tool: AnyTool,
  args: unknown,
  base: ToolBase,
  signal: CancelSignal | undefined,
  timeoutMs: number | undefined,
): Promise<CallToolResult> {
  const options = {
    timeoutMs: timeoutMs ?? parts.options.timeoutMs ?? 30_000,
    textFormat: parts.textFormat,
    logger: base.logger,
  };
  const pack = parts.registry.packOf(tool);
  const chain = (parts.middleware as MiddlewareStack).chainFor("tool", pack);
  if (chain.length === 0) return runTool(tool, args, base, signal, options);
  const ctx = callContext(frame, "tool", pack, tool, tool.name, undefined, args);
  const round = signal instanceof InputRound ? signal : undefined;
  // A round that stopped on a question: middleware sees INPUT_REQUIRED, the core answers input_required.
  let interim: CallToolResult | undefined;
  const last = async () => {
    const result = await runTool(tool, args, base, signal, options);
    if (!round?.needsInput) return result;
    interim = result;
    return INPUT_REQUIRED;
  };
  try {
    const value = await runChain(chain, ctx, last);
    if (interim !== undefined && round?.needsInput) return interim;
    return checkToolResult(value, tool.name);
  } catch (error) {
    return toToolErrorResult(error, tool.name, { logger: base.logger });
  }
}
