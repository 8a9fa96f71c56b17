import {
  CreateMessageResultSchema,
  ElicitResultSchema,
  ListRootsResultSchema,
  type LoggingLevel,
  LoggingLevelSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { ToolError } from "@toolshed/errors";
import type { RequestContext, ToolContext } from "@toolshed/schema";
import type { InputRound } from "../input-round.js";
import type { Params } from "../params.js";
import type { ToolBase } from "../run-tool.js";
import type { Call, ChangeHooks, LegacyConnection } from "./types.js";

// The context handlers get: for resources, prompts and completion, and the richer one of a tool call.

const SEVERITY = new Map(LoggingLevelSchema.options.map((level, index) => [level, index]));
const atLeast = (level: LoggingLevel, min: LoggingLevel) => (SEVERITY.get(level) ?? 0) >= (SEVERITY.get(min) ?? 0);

const cannot = (what: string) => () =>
  Promise.reject(
    new ToolError(`this server runs without sessions, so the tool cannot ${what}`, { code: "failed_precondition" }),
  );
const NO_SESSION = {
  createMessage: cannot("ask the client's model (sampling)"),
  elicitInput: cannot("ask the user (elicitation)"),
  listRoots: cannot("list the client's roots"),
};

/** The context of a resource, prompt or completion handler. */
export function baseContext(call: Call, hooks: ChangeHooks): RequestContext {
  const { scope } = call;
  const ctx: RequestContext = {
    signal: scope.signal,
    requestId: call.id,
    logger: scope.logger,
    resourceUpdated: hooks.resourceUpdated,
    resourceListChanged: hooks.resourceListChanged,
  };
  if (scope.authInfo) ctx.authInfo = scope.authInfo;
  if (scope.sessionId) ctx.sessionId = scope.sessionId;
  const capabilities = call.envelope?.clientCapabilities ?? scope.connection?.clientCapabilities();
  if (capabilities) ctx.clientCapabilities = capabilities;
  return ctx;
}

/** The one place a tool call's context is made, for either era and any transport. */
export function toolContext(call: Call, toolName: string, round: InputRound | undefined, hooks: ChangeHooks): ToolBase {
  const { scope, envelope } = call;
  const token = call.meta?.progressToken;
  const progressToken = typeof token === "string" || typeof token === "number" ? token : undefined;
  const connection = scope.connection;
  const notify = scope.notify;
  // No signal here: the runtime gives each call its own, so `scope.signal` is not read (and not made).
  const ctx: ToolBase = {
    requestId: call.id,
    logger: scope.logger,
    resourceUpdated: hooks.resourceUpdated,
    resourceListChanged: hooks.listChangedBy(toolName),
    progress: async (progress, total, message) => {
      if (progressToken === undefined || !notify) return;
      const p: Params = { progressToken, progress };
      if (total !== undefined) p.total = total;
      if (message !== undefined) p.message = message;
      await notify({ method: "notifications/progress", params: p });
    },
    log: async (level, data) => {
      if (!notify) return;
      // 2026-07-28: only when this request asked for logs; 2025: the connection's level, if set.
      const min = call.era === "modern" ? envelope?.logLevel : connection?.logLevel;
      if (call.era === "modern" && min === undefined) return;
      if (min !== undefined && !atLeast(level, min)) return;
      await notify({ method: "notifications/message", params: { level, logger: toolName, data } });
    },
    ...questions(round, connection),
  };
  if (scope.authInfo) ctx.authInfo = scope.authInfo;
  if (scope.sessionId) ctx.sessionId = scope.sessionId;
  const capabilities = envelope?.clientCapabilities ?? connection?.clientCapabilities();
  if (capabilities) ctx.clientCapabilities = capabilities;
  return ctx;
}

/** How a handler asks the client something: a round trip (2026), a request on the connection (2025), or a clear no. */
export function questions(
  round: InputRound | undefined,
  connection: LegacyConnection | undefined,
): Pick<ToolContext, "createMessage" | "elicitInput" | "listRoots"> {
  if (round) {
    return {
      createMessage: (params, options) => round.ask("sampling/createMessage", params, options?.key) as Promise<never>,
      elicitInput: (params, options) => round.ask("elicitation/create", params, options?.key) as Promise<never>,
      listRoots: (options) => round.ask("roots/list", undefined, options?.key) as Promise<never>,
    };
  }
  if (!connection) return NO_SESSION;
  const needs = (capability: "sampling" | "elicitation" | "roots", what: string) => {
    if (!(connection.clientCapabilities() as Record<string, unknown> | undefined)?.[capability]) {
      throw new ToolError(`this client does not support ${capability}, so the tool cannot ${what}`, {
        code: "failed_precondition",
      });
    }
  };
  return {
    createMessage: async (params) => {
      needs("sampling", "ask its model");
      return connection.request("sampling/createMessage", params as Params, CreateMessageResultSchema as never);
    },
    elicitInput: async (params) => {
      needs("elicitation", "ask the user");
      return connection.request("elicitation/create", params as Params, ElicitResultSchema as never);
    },
    listRoots: async () => {
      needs("roots", "list its roots");
      return connection.request("roots/list", undefined, ListRootsResultSchema as never);
    },
  };
}
