import { randomBytes } from "node:crypto";
import type { ClientCapabilities, LoggingLevel } from "@modelcontextprotocol/sdk/types.js";
import { InvalidArgumentsError, invalidArgumentsResult, ToolError, toolErrorResult } from "@toolshed/errors";
import type {
  AnyPrompt,
  AnyResourceTemplate,
  AnyTool,
  AuthInfo,
  CacheHint,
  InputContext,
  JsonSchema,
  Logger,
  Pack,
  RequestContext,
} from "@toolshed/schema";
import { scopeDeniedResult } from "./access.js";
import type { AttachPackOptions } from "./attach-options.js";
import { reportCoercions } from "./coercions.js";
import { MetaKey } from "./era.js";
import { type InputMethod, type InputRequiredResult, type InputRound, runInRounds } from "./input-round.js";
import { JsonRpcCode, JsonRpcError } from "./jsonrpc-error.js";
import { createLogger } from "./logger.js";
import { principalOf, RequestStateCodec } from "./request-state.js";
import { runTool } from "./run-tool.js";
import { Runtime } from "./runtime/runtime.js";
import { hintUnknownTools } from "./unknown-tool-hint.js";

// SDK v2 (@modelcontextprotocol/server 2.x) is an optional peer: nothing here imports it, so users
// of SDK 1.x need not install it. What this file uses of it is described structurally below.

/**
 * The parts of an SDK v2 `McpServer` (`@modelcontextprotocol/server` 2.x) that `attachPack` uses.
 * Callbacks are `never`: v2's overloaded signatures accept nothing narrower.
 */
export interface V2McpServer {
  /** Only the v2 McpServer has it; it tells the two SDK lines apart. */
  toolInputSchemaJson(name: string): Record<string, unknown> | undefined;
  registerTool(name: string, config: object, callback: never): unknown;
  registerResource(name: string, uriOrTemplate: string | object, config: object, callback: never): unknown;
  registerPrompt(name: string, config: object, callback: never): unknown;
  sendResourceListChanged(): void;
  readonly server: { getClientCapabilities(): object | undefined };
}

/** The handler context v2 passes (its `ServerContext`), as far as it is read here. */
interface V2Context {
  sessionId?: string;
  mcpReq: {
    id: string | number;
    _meta?: { progressToken?: unknown };
    /** The 2026-07-28 `_meta` envelope; absent on 2025 requests. */
    envelope?: Record<string, unknown>;
    inputResponses?: Record<string, unknown>;
    requestState(): unknown;
    signal: AbortSignal;
    notify(notification: { method: string; params?: Record<string, unknown> }): Promise<void>;
    log(level: LoggingLevel, data: unknown, logger?: string): Promise<void>;
  };
  http?: { authInfo?: AuthInfo };
}

/** What every handler of one attached pack shares. */
interface Binding {
  mcp: V2McpServer;
  runtime: Runtime;
  logger: Logger;
  state: RequestStateCodec;
  options: AttachPackOptions;
}

export function isV2McpServer(server: unknown): server is V2McpServer {
  return typeof (server as { toolInputSchemaJson?: unknown }).toolInputSchemaJson === "function";
}

// v2 servers are often made per request (createMcpHandler's factory): one default logger and one
// state key per process, so a retry that reaches a fresh McpServer can open the state it was given.
let defaultLogger: Logger | undefined;
let processSecret: Uint8Array | undefined;

/** v2 binding of `attachPack`; see attach.ts for what each SDK line keeps of the contract. */
export function attachPackV2(mcp: V2McpServer, pack: Pack, options: AttachPackOptions): void {
  if (options.logger === undefined) defaultLogger ??= createLogger();
  if (options.requestState?.secret === undefined) processSecret ??= randomBytes(32);
  const logger = options.logger ?? (defaultLogger as Logger);
  const secret = options.requestState?.secret ?? (processSecret as Uint8Array);
  const binding: Binding = {
    mcp,
    logger,
    options,
    runtime: new Runtime({ packs: [pack], logger, textFormat: options.textFormat }),
    state: new RequestStateCodec({ ...options.requestState, secret }),
  };
  for (const tool of pack.tools) registerTool(binding, tool);
  hintUnknownTools(mcp, "error");
  for (const resource of pack.resources) {
    const onRead = (uri: URL, ctx: V2Context) => read(binding, uri, ctx);
    mcp.registerResource(resource.name, resource.uri, resourceConfig(resource, pack), onRead as never);
  }
  for (const template of pack.resourceTemplates) {
    const onRead = (uri: URL, _variables: unknown, ctx: V2Context) => read(binding, uri, ctx);
    const config = resourceConfig(template, pack);
    mcp.registerResource(template.name, resourceTemplate(binding, template), config, onRead as never);
  }
  for (const prompt of pack.prompts) registerPrompt(binding, prompt);
}

/**
 * A Standard Schema that publishes Toolshed's portable JSON Schema (C5) and accepts any value:
 * arguments are checked by the tool itself, so invalid ones get the hint result (C6).
 */
function passThrough(schema: JsonSchema, extra: Record<string, unknown> = {}) {
  return {
    ...extra,
    "~standard": {
      version: 1,
      vendor: "toolshed",
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: () => schema, output: () => schema },
    },
  };
}

function registerTool(binding: Binding, tool: AnyTool): void {
  const { listing } = tool;
  const config: Record<string, unknown> = {
    description: listing.description,
    inputSchema: passThrough(listing.inputSchema),
  };
  if (listing.title !== undefined) config.title = listing.title;
  // Already wrapped as {result} for non-object output (C2).
  if (listing.outputSchema !== undefined) config.outputSchema = passThrough(listing.outputSchema);
  if (listing.annotations !== undefined) config.annotations = listing.annotations;
  if (listing.icons !== undefined) config.icons = listing.icons;
  if (listing._meta !== undefined) config._meta = listing._meta;
  const onCall = async (args: unknown, ctx: V2Context) => {
    const denied = scopeDeniedResult(binding.runtime, tool, ctx.http?.authInfo);
    if (denied) return denied;
    const { options, logger } = binding;
    const parsed = tool.parseArguments(args ?? {}, options.coerce === false ? { coerce: false } : undefined);
    if (!parsed.success) return invalidArgumentsResult(tool.name, parsed.issues);
    if (parsed.coercions !== undefined) reportCoercions(logger, tool.name, parsed.coercions);
    try {
      return await inRounds(binding, ctx, "tools/call", tool.name, args ?? {}, (round, capabilities) =>
        runTool(
          tool,
          parsed.data,
          {
            ...requestContext(binding, ctx, capabilities),
            progress: async (done, total, message) => {
              const token = ctx.mcpReq._meta?.progressToken;
              if (typeof token !== "string" && typeof token !== "number") return;
              const params: Record<string, unknown> = { progressToken: token, progress: done };
              if (total !== undefined) params.total = total;
              if (message !== undefined) params.message = message;
              await ctx.mcpReq.notify({ method: "notifications/progress", params });
            },
            // v2 filters by the level the client set (2025) or asked for in _meta (2026-07-28).
            log: (level, data) => ctx.mcpReq.log(level, data, tool.name),
            ...questions(round, capabilities),
          },
          round,
          { timeoutMs: options.timeoutMs ?? 30_000, textFormat: options.textFormat ?? "pretty", logger },
        ),
      );
    } catch (error) {
      // The McpServer turns anything a tool callback throws into a bare text result; a state the
      // client changed or an answer of the wrong shape stays a classified, non-retryable error
      // with C6's text (which already says "Invalid arguments", so not "Invalid params" again).
      if (error instanceof JsonRpcError) {
        return toolErrorResult(tool.name, new InvalidArgumentsError(error.message.replace(/^Invalid params: /, "")));
      }
      throw error;
    }
  };
  binding.mcp.registerTool(tool.name, config, onCall as never);
}

function registerPrompt(binding: Binding, prompt: AnyPrompt): void {
  const config: Record<string, unknown> = { description: prompt.description, argsSchema: promptArgs(binding, prompt) };
  if (prompt.title !== undefined) config.title = prompt.title;
  const onGet = (args: Record<string, string> | undefined, ctx: V2Context) =>
    inRounds(binding, ctx, "prompts/get", prompt.name, args ?? {}, (round, capabilities) =>
      // A prompt is not raced by runTool: the round's stop ends the wait for it.
      Promise.race([
        binding.runtime.getPrompt(prompt.name, args ?? {}, {
          ...requestContext(binding, ctx, capabilities),
          signal: ctx.mcpReq.signal,
          ...questions(round, capabilities),
        }),
        round.stopped,
      ]),
    );
  binding.mcp.registerPrompt(prompt.name, config, onGet as never);
}

/** The client's capabilities: this request's envelope (2026-07-28) or the connection's initialize (2025). */
function capabilitiesOf(binding: Binding, ctx: V2Context): ClientCapabilities | undefined {
  const envelope = ctx.mcpReq.envelope;
  if (envelope?.[MetaKey.protocolVersion] !== undefined) {
    return (envelope[MetaKey.clientCapabilities] ?? {}) as ClientCapabilities;
  }
  return binding.mcp.server.getClientCapabilities() as ClientCapabilities | undefined;
}

/**
 * One run of a handler that may ask the client. Its questions are answered from `inputResponses`
 * and the signed state of earlier rounds; an unanswered one ends the run with `input_required`.
 * v2 sends that to a 2026-07-28 client as it is, and on a 2025 connection asks the client itself
 * and runs the handler again with the answers, so one path serves both eras.
 */
async function inRounds<T>(
  binding: Binding,
  ctx: V2Context,
  method: string,
  target: string,
  args: unknown,
  run: (round: InputRound, capabilities: ClientCapabilities | undefined) => Promise<T>,
): Promise<T | InputRequiredResult> {
  const capabilities = capabilitiesOf(binding, ctx);
  return runInRounds(
    {
      codec: binding.state,
      binding: () => ({ method, target, args, principal: principalOf(ctx.http?.authInfo) }),
      requestState: ctx.mcpReq.requestState(),
      inputResponses: ctx.mcpReq.inputResponses,
      capabilities: capabilities ?? {},
      signal: ctx.mcpReq.signal,
    },
    (round) => run(round, capabilities),
  );
}

const ASKS: Record<
  InputMethod,
  { capability: "elicitation" | "sampling" | "roots"; what: string; sessionless: string }
> = {
  "elicitation/create": { capability: "elicitation", what: "ask the user", sessionless: "ask the user (elicitation)" },
  "sampling/createMessage": {
    capability: "sampling",
    what: "ask its model",
    sessionless: "ask the client's model (sampling)",
  },
  "roots/list": { capability: "roots", what: "list its roots", sessionless: "list the client's roots" },
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;

/**
 * The handler's questions, asked through the round. One the client cannot answer is refused here,
 * as the same failed_precondition tool error as on SDK 1.x: v2 would fail the whole request.
 */
function questions(round: InputRound, capabilities: ClientCapabilities | undefined): InputContext {
  const ask = (method: InputMethod, params: unknown, key: string | undefined): Promise<never> => {
    const { capability, what, sessionless } = ASKS[method];
    const declared = (capabilities as Record<string, unknown> | undefined)?.[capability];
    let why: string | undefined;
    // No capabilities on a 2025 request: a per-request (stateless) server that cannot ask anything.
    if (capabilities === undefined) why = `this server runs without sessions, so the tool cannot ${sessionless}`;
    else if (!isObject(declared)) why = `this client does not support ${capability}, so the tool cannot ${what}`;
    else if (isObject(params) && params.mode === "url" && !isObject(declared.url)) {
      why = "this client does not support URL elicitation, so the tool cannot send the user to a URL";
    }
    if (why !== undefined) return Promise.reject(new ToolError(why, { code: "failed_precondition" }));
    return round.ask(method, params, key) as Promise<never>;
  };
  return {
    createMessage: (params, options) => ask("sampling/createMessage", params, options?.key),
    elicitInput: (params, options) => ask("elicitation/create", params, options?.key),
    listRoots: (options) => ask("roots/list", undefined, options?.key),
  };
}

/** What resource, prompt and tool handlers get about their request (the signal is added per use). */
function requestContext(
  binding: Binding,
  ctx: V2Context,
  capabilities: ClientCapabilities | undefined,
): Omit<RequestContext, "signal"> {
  const { mcp, options } = binding;
  const out: Omit<RequestContext, "signal"> = {
    requestId: ctx.mcpReq.id,
    logger: binding.logger,
    // The McpServer keeps no subscription list of its own: whoever keeps one hears of updates.
    resourceUpdated: (uri) => options.onResourceUpdated?.(uri),
    resourceListChanged: () => mcp.sendResourceListChanged(),
  };
  if (ctx.http?.authInfo) out.authInfo = ctx.http.authInfo;
  if (ctx.sessionId) out.sessionId = ctx.sessionId;
  if (capabilities) out.clientCapabilities = capabilities;
  return out;
}

async function read(binding: Binding, uri: URL, ctx: V2Context) {
  const context = { ...requestContext(binding, ctx, capabilitiesOf(binding, ctx)), signal: ctx.mcpReq.signal };
  try {
    return await binding.runtime.readResource(uri.href, context);
  } catch (error) {
    // v2's own not-found shape (-32602, data exactly {uri}), so its client sees a ResourceNotFoundError.
    if (error instanceof JsonRpcError && error.code === JsonRpcCode.ResourceNotFound) {
      throw new JsonRpcError(JsonRpcCode.InvalidParams, error.message, { uri: uri.href });
    }
    throw error;
  }
}

/** Title, description and MIME type, and the cache hint of 2026-07-28 reads (the definition's, else the pack's). */
function resourceConfig(
  definition: { title?: string; description: string; mimeType?: string; cache?: CacheHint },
  pack: Pack,
): Record<string, unknown> {
  const config: Record<string, unknown> = { description: definition.description };
  if (definition.title !== undefined) config.title = definition.title;
  if (definition.mimeType !== undefined) config.mimeType = definition.mimeType;
  const ttlMs = definition.cache?.ttlMs ?? pack.cache?.data?.ttlMs;
  const scope = definition.cache?.scope ?? pack.cache?.data?.scope;
  if (ttlMs !== undefined || scope !== undefined) {
    config.cacheHint = {
      ...(ttlMs === undefined ? {} : { ttlMs }),
      ...(scope === undefined ? {} : { cacheScope: scope }),
    };
  }
  return config;
}

/** What v2's registerResource reads of its `ResourceTemplate` class, built on the pack's own template. */
function resourceTemplate(binding: Binding, template: AnyResourceTemplate) {
  const { runtime, logger } = binding;
  return {
    uriTemplate: {
      variableNames: [...template.variables],
      toString: () => template.uriTemplate,
      match: (uri: string) => template.match(uri) ?? null,
    },
    listCallback: template.list
      ? async (ctx: V2Context) => ({
          resources: await runtime.listTemplateResources(template, {
            ...requestContext(binding, ctx, capabilitiesOf(binding, ctx)),
            signal: ctx.mcpReq.signal,
          }),
        })
      : undefined,
    // Every variable, as on SDK 1.x: the runtime answers [] where the pack has no completer.
    // Uncapped: the SDK caps at 100 and computes total and hasMore itself.
    completeCallback: (variable: string) =>
      template.variables.includes(variable)
        ? (value: string, context?: { arguments?: Record<string, string> }) =>
            runtime.completionValues(
              { type: "ref/resource", uri: template.uriTemplate },
              { name: variable, value },
              context?.arguments ?? {},
              { signal: new AbortController().signal, logger },
            )
        : undefined,
  };
}

// v2 finds a prompt argument's completer under this registered symbol (what its `completable()`
// sets); a registered symbol is the same in every copy of the SDK.
const COMPLETABLE = Symbol.for("mcp.completable");

/**
 * A prompt's arguments as published by createServer (name, description, required), with each
 * completer where v2 looks for it: on the field of the schema's `shape`.
 */
function promptArgs(binding: Binding, prompt: AnyPrompt) {
  const properties: Record<string, JsonSchema> = {};
  for (const arg of prompt.arguments) {
    properties[arg.name] =
      arg.description === undefined ? { type: "string" } : { type: "string", description: arg.description };
  }
  const required = prompt.arguments.filter((a) => a.required).map((a) => a.name);
  const shape: Record<string, object> = {};
  for (const name of Object.keys(prompt.complete ?? {})) {
    const complete = (value: unknown, context?: { arguments?: Record<string, string> }) =>
      binding.runtime.completionValues(
        { type: "ref/prompt", name: prompt.name },
        { name, value: String(value ?? "") },
        context?.arguments ?? {},
        { signal: new AbortController().signal, logger: binding.logger },
      );
    shape[name] = { [COMPLETABLE]: { complete } };
  }
  return passThrough({ type: "object", properties, required }, { shape });
}
