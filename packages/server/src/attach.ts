import { completable } from "@modelcontextprotocol/sdk/server/completable.js";
import { type McpServer, ResourceTemplate as SdkResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  type CallToolResult,
  CreateMessageResultSchema,
  ElicitResultSchema,
  ListRootsResultSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { invalidArgumentsResult, ToolError } from "@toolshed/errors";
import type { AnyTool, JsonSchema, Logger, Pack, PromptDefinition, RequestContext } from "@toolshed/schema";
import { z } from "zod";
import { scopeDeniedResult } from "./access.js";
import type { AttachPackOptions } from "./attach-options.js";
import { attachPackV2, isV2McpServer, type V2McpServer } from "./attach-v2.js";
import { reportCoercions } from "./coercions.js";
import { createLogger } from "./logger.js";
import { runTool } from "./run-tool.js";
import { Runtime } from "./runtime/runtime.js";
import { hintUnknownTools } from "./unknown-tool-hint.js";

type SdkExtra = {
  signal: AbortSignal;
  requestId: string | number;
  sessionId?: string;
  authInfo?: RequestContext["authInfo"];
  _meta?: { progressToken?: string | number };
  sendNotification: (n: { method: string; params?: Record<string, unknown> }) => Promise<void>;
  sendRequest: (r: { method: string; params?: Record<string, unknown> }, schema: unknown) => Promise<unknown>;
};

function context(
  extra: SdkExtra,
  logger: Logger,
  mcpServer: McpServer,
  onResourceUpdated: ((uri: string) => void) | undefined,
): RequestContext {
  const ctx: RequestContext = {
    signal: extra.signal,
    requestId: extra.requestId,
    logger,
    // The McpServer keeps no subscription list of its own: whoever keeps one hears of updates.
    resourceUpdated: (uri) => onResourceUpdated?.(uri),
    resourceListChanged: () => {
      if (mcpServer.isConnected()) mcpServer.sendResourceListChanged();
    },
  };
  if (extra.authInfo) ctx.authInfo = extra.authInfo;
  if (extra.sessionId) ctx.sessionId = extra.sessionId;
  return ctx;
}

/**
 * Mounts a pack on an existing SDK `McpServer`. Tools keep C1-C4 and C6-C11 (structured
 * results, checked output, invalid-argument hints, tool errors, masking, retry classes, batches),
 * and publish createServer's schemas with the SDK's draft-07 `$schema` key (C5). What the
 * McpServer owns stays the SDK's: unknown tools answered as isError results instead of JSON-RPC
 * -32602 (C12), though with the closest tool names, as createServer gives them.
 *
 * `requiredScopes` (the pack's and each definition's) are enforced where the request carries
 * credentials (`authInfo`, from an authenticating transport): a tool call whose token lacks a scope
 * is a `permission_denied` tool error (the McpServer turns thrown errors into plain text results),
 * a resource read or prompt get the -32003 JSON-RPC error createServer answers. The McpServer's own
 * lists cannot be filtered from here, so every definition stays listed for every caller, and
 * completions (which the SDK calls without credentials) are not checked. Use `createServer` for
 * per-caller lists and `canAccess`.
 *
 * On an SDK v2 McpServer (`@modelcontextprotocol/server`) schemas are published
 * exactly as by createServer, and the pack's questions to the client work in both protocol eras
 * (attach-v2.ts). Use `createServer` for the whole contract.
 */
export function attachPack(mcpServer: McpServer | V2McpServer, pack: Pack, options: AttachPackOptions = {}): void {
  if (isV2McpServer(mcpServer)) {
    attachPackV2(mcpServer, pack, options);
    return;
  }
  const logger = options.logger ?? createLogger();
  // Resource and prompt handlers are shared with the runtime, so they fail the same way.
  const runtime = new Runtime({ packs: [pack], logger, textFormat: options.textFormat });
  for (const tool of pack.tools) registerTool(mcpServer, tool, logger, options, runtime);
  hintUnknownTools(mcpServer, "result");

  for (const resource of pack.resources) {
    const meta: Record<string, unknown> = { description: resource.description };
    if (resource.title) meta.title = resource.title;
    if (resource.mimeType) meta.mimeType = resource.mimeType;
    mcpServer.registerResource(resource.name, resource.uri, meta, (uri, extra) =>
      runtime.readResource(
        uri.href,
        context(extra as unknown as SdkExtra, logger, mcpServer, options.onResourceUpdated),
      ),
    );
  }
  for (const template of pack.resourceTemplates) {
    const complete: Record<string, (value: string, c?: { arguments?: Record<string, string> }) => Promise<string[]>> =
      {};
    for (const variable of template.variables) {
      // Uncapped: the SDK caps at 100 and computes total and hasMore itself.
      complete[variable] = (value, c) =>
        runtime.completionValues(
          { type: "ref/resource", uri: template.uriTemplate },
          { name: variable, value },
          c?.arguments ?? {},
          { signal: new AbortController().signal, logger },
        );
    }
    const list = template.list
      ? async (extra: unknown) => ({
          resources: await runtime.listTemplateResources(
            template,
            context(extra as SdkExtra, logger, mcpServer, options.onResourceUpdated),
          ),
        })
      : undefined;
    const meta: Record<string, unknown> = { description: template.description };
    if (template.title) meta.title = template.title;
    if (template.mimeType) meta.mimeType = template.mimeType;
    mcpServer.registerResource(
      template.name,
      new SdkResourceTemplate(template.uriTemplate, { list, complete }),
      meta,
      (uri, _vars, extra) =>
        runtime.readResource(
          uri.href,
          context(extra as unknown as SdkExtra, logger, mcpServer, options.onResourceUpdated),
        ),
    );
  }
  for (const prompt of pack.prompts) {
    const shape: Record<string, z.ZodType> = {};
    for (const [name, schema] of Object.entries(sdkPromptShape(prompt))) {
      const completer = prompt.complete?.[name];
      shape[name] = completer
        ? (completable(
            // completable() marks the schema it is given; a clone keeps the pack's own schema
            // unmarked so the pack can be attached to several servers.
            (schema as z.ZodType & { clone(): z.ZodType }).clone() as never,
            ((value: unknown, c?: { arguments?: Record<string, string> }) =>
              runtime.completionValues(
                { type: "ref/prompt", name: prompt.name },
                { name, value: String(value ?? "") },
                c?.arguments ?? {},
                { signal: new AbortController().signal, logger },
              )) as never,
          ) as unknown as z.ZodType)
        : schema;
    }
    const config: Record<string, unknown> = { description: prompt.description, argsSchema: shape };
    if (prompt.title) config.title = prompt.title;
    mcpServer.registerPrompt(
      prompt.name,
      config as never,
      (async (args: Record<string, string>, extra: unknown) =>
        runtime.getPrompt(
          prompt.name,
          args,
          context(extra as SdkExtra, logger, mcpServer, options.onResourceUpdated),
        )) as never,
    );
  }
}

function requireClientCapability(
  mcpServer: McpServer,
  capability: "sampling" | "elicitation" | "roots",
  what: string,
): void {
  if (!mcpServer.server.getClientCapabilities()?.[capability]) {
    throw new ToolError(`this client does not support ${capability}, so the tool cannot ${what}`, {
      code: "failed_precondition",
    });
  }
}

/**
 * A Zod object that accepts any arguments and publishes the given JSON Schema: the tool checks
 * its arguments itself, so invalid ones get C6's hints and class instead of the SDK's text, and
 * the published schema is createServer's (C5) plus the SDK's draft-07 `$schema`.
 */
function publishedAs(schema: JsonSchema): z.ZodType {
  const accepting = z.looseObject({});
  // Zod's hook for a schema's own JSON Schema; a copy, as the SDK's conversion adds `$schema` to it.
  accepting._zod.toJSONSchema = () => structuredClone(schema);
  return accepting;
}

function registerTool(
  mcpServer: McpServer,
  tool: AnyTool,
  logger: Logger,
  options: AttachPackOptions,
  runtime: Runtime,
): void {
  const { listing } = tool;
  const config: Record<string, unknown> = {
    description: listing.description,
    inputSchema: publishedAs(listing.inputSchema),
  };
  if (listing.title !== undefined) config.title = listing.title;
  // Already wrapped as {result} for non-object output (C2); runTool checks it (C3).
  if (listing.outputSchema !== undefined) config.outputSchema = publishedAs(listing.outputSchema);
  if (listing.annotations !== undefined) config.annotations = listing.annotations;
  // The SDK 1.x McpServer lists _meta but has no place for icons.
  if (listing._meta !== undefined) config._meta = listing._meta;
  const callback = async (args: unknown, rawExtra: unknown): Promise<CallToolResult> => {
    const extra = rawExtra as SdkExtra;
    const denied = scopeDeniedResult(runtime, tool, extra.authInfo);
    if (denied) return denied;
    const parsed = tool.parseArguments(args ?? {}, options.coerce === false ? { coerce: false } : undefined);
    if (!parsed.success) return invalidArgumentsResult(tool.name, parsed.issues);
    if (parsed.coercions !== undefined) reportCoercions(logger, tool.name, parsed.coercions);
    const token = extra._meta?.progressToken;
    return runTool(
      tool,
      parsed.data,
      {
        ...context(extra, logger, mcpServer, options.onResourceUpdated),
        progress: async (done, total, message) => {
          if (token === undefined) return;
          await extra.sendNotification({
            method: "notifications/progress",
            params: {
              progressToken: token,
              progress: done,
              ...(total === undefined ? {} : { total }),
              ...(message === undefined ? {} : { message }),
            },
          });
        },
        log: async (level, data) => {
          await mcpServer.server.sendLoggingMessage({ level, logger: tool.name, data }, extra.sessionId);
        },
        createMessage: (params) => {
          requireClientCapability(mcpServer, "sampling", "ask its model");
          return extra.sendRequest({ method: "sampling/createMessage", params }, CreateMessageResultSchema) as never;
        },
        elicitInput: (params) => {
          requireClientCapability(mcpServer, "elicitation", "ask the user");
          return extra.sendRequest({ method: "elicitation/create", params }, ElicitResultSchema) as never;
        },
        listRoots: () => {
          requireClientCapability(mcpServer, "roots", "list its roots");
          return extra.sendRequest({ method: "roots/list" }, ListRootsResultSchema) as never;
        },
      },
      extra.signal,
      { timeoutMs: options.timeoutMs ?? 30_000, textFormat: options.textFormat ?? "pretty", logger },
    );
  };
  mcpServer.registerTool(tool.name, config as never, callback as never);
}

/**
 * The arguments of a prompt as the SDK's McpServer takes them: a Zod prompt's own shape; for a
 * JSON Schema or Standard Schema prompt, a string per argument (prompts/get sends strings), its
 * own schema checking them after.
 */
function sdkPromptShape(prompt: PromptDefinition): Record<string, z.ZodType> {
  if (prompt.schemaKind === "zod") return (prompt.args as z.ZodObject).shape as Record<string, z.ZodType>;
  const shape: Record<string, z.ZodType> = {};
  for (const arg of prompt.arguments) {
    // Described last: the SDK reads the description of the outermost schema.
    shape[arg.name] = (arg.required ? z.string() : z.string().optional()).describe(arg.description ?? arg.name);
  }
  return shape;
}
