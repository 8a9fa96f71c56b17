import {
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCResultResponse,
  LATEST_PROTOCOL_VERSION,
  type ServerCapabilities,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import { newErrorRef, ToolError } from "@toolshed/errors";
import type { AuthInfo, Logger, RequestContext, ToolContext } from "@toolshed/schema";
import {
  type CancelSignal,
  checkLogLevel,
  completionParams,
  JsonRpcCode,
  JsonRpcError,
  optionalObject,
  type Params,
  paramsOf,
  type Runtime,
  requireString,
} from "@toolshed/server";

import { currentRequest, type RequestRecord, recordingLogger } from "./request-context.js";

export interface ServerInfo {
  name: string;
  version: string;
  title?: string;
  instructions?: string;
}

/** What one HTTP request gives the calls it carries. */
export interface CallContext {
  authInfo?: AuthInfo;
  /** Aborted when the client goes away or the server gives up on the call. */
  signal: AbortSignal;
  /** The same cancellation in a cheaper form, which tool calls listen to instead when given. */
  cancel?: CancelSignal;
  /** Streams a notification to the client; absent when the answer is plain JSON. */
  notify?: (notification: JSONRPCNotification) => void;
  /**
   * The HTTP request's record, for its log line (otherwise the one `runInRequest` set, if any);
   * the calls then log with the request's id.
   */
  record?: RequestRecord;
}

export type Answer = JSONRPCResultResponse | JSONRPCErrorResponse;

/**
 * A request's context with the record and logger its calls use. Reads through to the caller's
 * context instead of copying it: copying would read (and so make) its signal.
 */
class CallLogContext {
  readonly #base: CallContext;
  readonly record: RequestRecord | undefined;
  readonly logger: Logger;

  constructor(base: CallContext, record: RequestRecord | undefined, logger: Logger) {
    this.#base = base;
    this.record = record;
    this.logger = logger;
  }

  get signal(): AbortSignal {
    return this.#base.signal;
  }

  get cancel(): CancelSignal | undefined {
    return this.#base.cancel;
  }

  get authInfo(): AuthInfo | undefined {
    return this.#base.authInfo;
  }

  get notify(): CallContext["notify"] | undefined {
    return this.#base.notify;
  }
}

/**
 * The SDK binding's capabilities, less resource subscriptions: without a session there is no
 * stream to send notifications/resources/updated on (resources/subscribe is -32601 here).
 */
export function capabilitiesOf(runtime: Runtime): ServerCapabilities {
  const capabilities: ServerCapabilities = { tools: { listChanged: false }, logging: {} };
  if (runtime.hasResources) capabilities.resources = { listChanged: false };
  if (runtime.hasPrompts) capabilities.prompts = { listChanged: false };
  if (runtime.hasResources || runtime.hasPrompts) capabilities.completions = {};
  return capabilities;
}

const cannot = (what: string) => async (): Promise<never> => {
  throw new ToolError(`this server runs without sessions, so the tool cannot ${what}`, {
    code: "failed_precondition",
  });
};
const cannotSample = cannot("ask the client's model (sampling)");
const cannotElicit = cannot("ask the user (elicitation)");

const methodNotFound = () => new JsonRpcError(JsonRpcCode.MethodNotFound, "Method not found");

/**
 * Stateless JSON-RPC over the shared runtime: no SDK server or transport per request. Answers
 * requests; notifications and client responses need no answer (undefined).
 */
export function createDispatcher(runtime: Runtime, info: ServerInfo) {
  const capabilities = capabilitiesOf(runtime);
  const serverInfo: { name: string; version: string; title?: string } = { name: info.name, version: info.version };
  if (info.title !== undefined) serverInfo.title = info.title;
  const logger = runtime.logger;

  const baseContext = (ctx: CallLogContext, id: string | number): RequestContext => {
    const base: RequestContext = { signal: ctx.signal, requestId: id, logger: ctx.logger };
    if (ctx.authInfo) base.authInfo = ctx.authInfo;
    return base;
  };

  const toolContext = (ctx: CallLogContext, id: string | number, params: Params, toolName: string) => {
    const meta = optionalObject("tools/call", params, "_meta");
    const token = meta?.progressToken;
    const progressToken = typeof token === "string" || typeof token === "number" ? token : undefined;
    // No signal here: the runtime gives each call its own, so `ctx.signal` is not read (and not made).
    const tool: Omit<ToolContext, "signal" | "toolName"> = {
      requestId: id,
      logger: ctx.logger,
      ...(ctx.authInfo ? { authInfo: ctx.authInfo } : {}),
      progress: async (progress, total, message) => {
        if (progressToken === undefined || !ctx.notify) return;
        const p: Params = { progressToken, progress };
        if (total !== undefined) p.total = total;
        if (message !== undefined) p.message = message;
        ctx.notify({ jsonrpc: "2.0", method: "notifications/progress", params: p });
      },
      log: async (level, data) => {
        ctx.notify?.({ jsonrpc: "2.0", method: "notifications/message", params: { level, logger: toolName, data } });
      },
      createMessage: cannotSample,
      elicitInput: cannotElicit,
    };
    return tool;
  };

  async function handle(method: string, raw: unknown, ctx: CallLogContext, id: string | number): Promise<unknown> {
    const params = paramsOf(method, raw);
    switch (method) {
      case "initialize": {
        const requested = params.protocolVersion;
        if (typeof requested !== "string") {
          throw new JsonRpcError(
            JsonRpcCode.InvalidParams,
            `Invalid params for initialize: params.protocolVersion must be a string such as ${LATEST_PROTOCOL_VERSION}`,
          );
        }
        return {
          protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION,
          capabilities,
          serverInfo,
          ...(info.instructions === undefined ? {} : { instructions: info.instructions }),
        };
      }
      case "ping":
        return {};
      case "tools/list":
        return { tools: runtime.listTools(runtime.viewFor(ctx.authInfo)) };
      case "tools/call": {
        const name = requireString("tools/call", params, "name", "the tool name (a non-empty string)");
        const args = optionalObject("tools/call", params, "arguments") ?? {};
        ctx.record?.tools.push(name);
        const view = runtime.viewFor(ctx.authInfo);
        return runtime.callTool(name, args, view, toolContext(ctx, id, params, name), ctx.cancel ?? ctx.signal);
      }
      case "logging/setLevel":
        // Accepted for clients that always send it; a stateless server keeps no level between requests.
        checkLogLevel(params);
        return {};
      case "resources/list":
        if (!runtime.hasResources) throw methodNotFound();
        return { resources: await runtime.listResources(baseContext(ctx, id)) };
      case "resources/templates/list":
        if (!runtime.hasResources) throw methodNotFound();
        return { resourceTemplates: runtime.listResourceTemplates() };
      case "resources/read": {
        if (!runtime.hasResources) throw methodNotFound();
        const uri = requireString("resources/read", params, "uri", "the resource URI (a non-empty string)");
        return runtime.readResource(uri, baseContext(ctx, id));
      }
      case "prompts/list":
        if (!runtime.hasPrompts) throw methodNotFound();
        return { prompts: runtime.listPrompts() };
      case "prompts/get": {
        if (!runtime.hasPrompts) throw methodNotFound();
        const name = requireString("prompts/get", params, "name", "the prompt name (a non-empty string)");
        return runtime.getPrompt(name, optionalObject("prompts/get", params, "arguments") ?? {}, baseContext(ctx, id));
      }
      case "completion/complete": {
        if (!capabilities.completions) throw methodNotFound();
        const { ref, argument, context } = completionParams(params);
        return runtime.complete(ref, argument, context, baseContext(ctx, id));
      }
      default:
        throw methodNotFound();
    }
  }

  return async function dispatch(message: JSONRPCMessage, callContext: CallContext): Promise<Answer | undefined> {
    if (!("method" in message && "id" in message)) return undefined;
    const { id, method } = message;
    const record = callContext.record ?? currentRequest();
    record?.rpc.push(method);
    const ctx = new CallLogContext(
      callContext,
      record,
      callContext.record ? recordingLogger(logger, () => record) : logger,
    );
    try {
      const result = (await handle(method, message.params, ctx, id)) as JSONRPCResultResponse["result"];
      return { jsonrpc: "2.0", id, result };
    } catch (error) {
      if (error instanceof JsonRpcError) {
        const err: JSONRPCErrorResponse["error"] = { code: error.code, message: error.message };
        if (error.data !== undefined) err.data = error.data;
        return { jsonrpc: "2.0", id, error: err };
      }
      const ref = newErrorRef();
      ctx.logger.error({ ref, method, err: error }, `Internal error answering ${method}`);
      return { jsonrpc: "2.0", id, error: { code: JsonRpcCode.InternalError, message: `Internal error (ref ${ref})` } };
    }
  };
}

export type Dispatch = ReturnType<typeof createDispatcher>;
