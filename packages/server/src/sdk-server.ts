import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  CreateMessageResultSchema,
  ElicitResultSchema,
  type LoggingLevel,
  LoggingLevelSchema,
  type ServerCapabilities,
} from "@modelcontextprotocol/sdk/types.js";
import { ToolError } from "@toolshed/errors";
import type { Logger, RequestContext, ToolContext } from "@toolshed/schema";
import { z } from "zod";
import { JsonRpcCode, JsonRpcError } from "./jsonrpc-error.js";
import { checkLogLevel, completionParams, optionalObject, type Params, paramsOf, requireString } from "./params.js";
import type { Runtime } from "./runtime.js";

// Permissive request schemas: the SDK's own would turn a malformed request into a -32603 ZodError
// dump; these let the runtime answer -32602 with a hint instead (C12). Only method and params
// are kept (handlers read nothing else), which is cheaper than passing every key through.
const requestOf = <M extends string>(method: M) =>
  z.object({ method: z.literal(method), params: z.unknown().optional() });

const SEVERITY = new Map(LoggingLevelSchema.options.map((level, index) => [level, index]));

/** The pieces of the SDK's request "extra" the runtime uses. */
interface Extra {
  signal: AbortSignal;
  authInfo?: RequestContext["authInfo"];
  requestId: string | number;
  sessionId?: string;
  _meta?: { progressToken?: string | number };
  sendNotification: (n: { method: string; params?: Params }) => Promise<void>;
  sendRequest: <T>(r: { method: string; params?: Params }, schema: z.ZodType<T>) => Promise<T>;
}

export interface SdkServerOptions {
  name: string;
  version: string;
  title?: string;
  instructions?: string;
}

const SUBSCRIPTIONS = new WeakMap<Server, ReadonlySet<string>>();

/** The resource URIs a connection subscribed to (empty for servers without resources). */
export function subscriptionsOf(server: Server): ReadonlySet<string> {
  return SUBSCRIPTIONS.get(server) ?? new Set();
}

/** A low-level SDK `Server` with every handler answered by the runtime (one per connection). */
export function createSdkServer(runtime: Runtime, info: SdkServerOptions): Server {
  const capabilities: ServerCapabilities = { tools: { listChanged: false }, logging: {} };
  if (runtime.hasResources) capabilities.resources = { listChanged: false, subscribe: true };
  if (runtime.hasPrompts) capabilities.prompts = { listChanged: false };
  if (runtime.hasResources || runtime.hasPrompts) capabilities.completions = {};
  const serverInfo: { name: string; version: string; title?: string } = { name: info.name, version: info.version };
  if (info.title !== undefined) serverInfo.title = info.title;
  const server = new Server(serverInfo, {
    capabilities,
    ...(info.instructions === undefined ? {} : { instructions: info.instructions }),
  });
  let minLevel: LoggingLevel | undefined;
  const logger: Logger = runtime.logger;

  const baseContext = (extra: Extra): RequestContext => {
    const ctx: RequestContext = { signal: extra.signal, requestId: extra.requestId, logger };
    if (extra.authInfo) ctx.authInfo = extra.authInfo;
    if (extra.sessionId) ctx.sessionId = extra.sessionId;
    return ctx;
  };

  const toolContext = (extra: Extra, toolName: string): Omit<ToolContext, "signal" | "toolName"> => {
    const token = extra._meta?.progressToken;
    // One object, no signal: the runtime gives each call its own.
    const ctx: Omit<ToolContext, "signal" | "toolName"> = {
      requestId: extra.requestId,
      logger,
      progress: async (done, total, message) => {
        if (token === undefined) return;
        const params: Params = { progressToken: token, progress: done };
        if (total !== undefined) params.total = total;
        if (message !== undefined) params.message = message;
        await extra.sendNotification({ method: "notifications/progress", params });
      },
      log: async (level, data) => {
        if (minLevel !== undefined && (SEVERITY.get(level) ?? 0) < (SEVERITY.get(minLevel) ?? 0)) return;
        await extra.sendNotification({ method: "notifications/message", params: { level, logger: toolName, data } });
      },
      createMessage: async (params) => {
        if (!server.getClientCapabilities()?.sampling) {
          throw new ToolError("this client does not support sampling, so the tool cannot ask its model", {
            code: "failed_precondition",
          });
        }
        return extra.sendRequest({ method: "sampling/createMessage", params }, CreateMessageResultSchema as never);
      },
      elicitInput: async (params) => {
        if (!server.getClientCapabilities()?.elicitation) {
          throw new ToolError("this client does not support elicitation, so the tool cannot ask the user", {
            code: "failed_precondition",
          });
        }
        return extra.sendRequest({ method: "elicitation/create", params }, ElicitResultSchema as never);
      },
    };
    if (extra.authInfo) ctx.authInfo = extra.authInfo;
    if (extra.sessionId) ctx.sessionId = extra.sessionId;
    return ctx;
  };

  // biome-ignore lint/suspicious/noExplicitAny: the SDK's handler types are tied to its own schemas
  const on = (method: string, handler: (params: Params, extra: Extra) => Promise<any>) => {
    // Protocol's registration, not Server's: Server re-validates tools/call with the SDK schema
    // and answers a ZodError dump; the runtime checks params itself and answers hints.
    Protocol.prototype.setRequestHandler.call(
      server,
      requestOf(method) as never,
      ((request: { params?: unknown }, extra: Extra) => handler(paramsOf(method, request.params), extra)) as never,
    );
  };

  on("tools/list", async (_params, extra) => ({ tools: runtime.listTools(runtime.viewFor(extra.authInfo)) }));

  on("tools/call", async (params, extra) => {
    const name = requireString("tools/call", params, "name", "the tool name (a non-empty string)");
    const args = optionalObject("tools/call", params, "arguments") ?? {};
    return runtime.callTool(name, args, runtime.viewFor(extra.authInfo), toolContext(extra, name), extra.signal);
  });

  on("logging/setLevel", async (params) => {
    minLevel = checkLogLevel(params);
    return {};
  });

  if (runtime.hasResources) {
    const subscribed = new Set<string>();
    SUBSCRIPTIONS.set(server, subscribed);
    on("resources/subscribe", async (params) => {
      const uri = requireString("resources/subscribe", params, "uri", "the resource URI (a non-empty string)");
      if (!runtime.knowsResource(uri)) {
        throw new JsonRpcError(
          JsonRpcCode.ResourceNotFound,
          `Resource not found: ${uri}; subscribe to a URI from resources/list or a resource template`,
        );
      }
      subscribed.add(uri);
      return {};
    });
    on("resources/unsubscribe", async (params) => {
      subscribed.delete(requireString("resources/unsubscribe", params, "uri", "the resource URI (a non-empty string)"));
      return {};
    });
    on("resources/list", async (_params, extra) => ({ resources: await runtime.listResources(baseContext(extra)) }));
    on("resources/templates/list", async () => ({ resourceTemplates: runtime.listResourceTemplates() }));
    on("resources/read", async (params, extra) => {
      const uri = requireString("resources/read", params, "uri", "the resource URI (a non-empty string)");
      return runtime.readResource(uri, baseContext(extra));
    });
  }
  if (runtime.hasPrompts) {
    on("prompts/list", async () => ({ prompts: runtime.listPrompts() }));
    on("prompts/get", async (params, extra) => {
      const name = requireString("prompts/get", params, "name", "the prompt name (a non-empty string)");
      return runtime.getPrompt(name, optionalObject("prompts/get", params, "arguments") ?? {}, baseContext(extra));
    });
  }
  if (capabilities.completions) {
    on("completion/complete", async (params, extra) => {
      const { ref, argument, context } = completionParams(params);
      return runtime.complete(ref, argument, context, baseContext(extra));
    });
  }
  return server;
}
