import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { insufficientScopeError } from "../access.js";
import { LEGACY_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS } from "../era.js";
import { JsonRpcCode, JsonRpcError } from "../jsonrpc-error.js";
import { checkLogLevel, completionParams, requireString } from "../params.js";
import type { CacheFields } from "../runtime/cache-hints.js";
import { callTool, getPrompt } from "./calls.js";
import { capabilitiesOf } from "./capabilities.js";
import { baseContext } from "./handler-context.js";
import { listen } from "./listen.js";
import { declaresTasks, tasksRequired } from "./tasks.js";
import type { Call, CoreParts, Entry } from "./types.js";

/**
 * Every MCP method this server answers, by name: which era may call it, what it runs, and the
 * cache hint of its 2026-07-28 answer. Resource and prompt methods only when a pack has some.
 */
export function methodTable(parts: CoreParts): Map<string, Entry> {
  const { runtime, info, serverInfo } = parts;
  const methods = new Map<string, Entry>();
  const on = (method: string, entry: Entry) => methods.set(method, entry);
  // Lists and reads that depend on the caller are private to an authenticated caller, whatever a
  // pack's hint says: resources when filtered by scope or canAccess, definition lists also when a
  // read-only token sees fewer tools (C14).
  const privateIf = (byCaller: boolean, cache: CacheFields, call: Call): CacheFields =>
    byCaller && call.scope.authInfo !== undefined && cache.scope !== "private"
      ? { ttlMs: cache.ttlMs, scope: "private" }
      : cache;
  const perCaller = (cache: CacheFields, call: Call) => privateIf(runtime.filtersByCaller, cache, call);
  const definitions = (call: Call) => privateIf(runtime.listsByCaller, runtime.definitionsCache, call);
  const base = (call: Call) => baseContext(call, parts.hooks);

  on("initialize", {
    era: "legacy",
    run: ({ params, scope }) => {
      const requested = params.protocolVersion;
      if (typeof requested !== "string") {
        throw new JsonRpcError(
          JsonRpcCode.InvalidParams,
          `Invalid params for initialize: params.protocolVersion must be a string such as ${LATEST_PROTOCOL_VERSION}`,
        );
      }
      return {
        protocolVersion: LEGACY_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION,
        // A connection can be told of changes; a stateless request cannot (no stream outlives it).
        capabilities: capabilitiesOf(runtime, "legacy", scope.connection !== undefined),
        serverInfo,
        ...(info.instructions === undefined ? {} : { instructions: info.instructions }),
      };
    },
  });
  on("ping", { era: "legacy", run: () => ({}) });
  on("server/discover", {
    era: "modern",
    run: () => ({
      supportedVersions: [...MODERN_PROTOCOL_VERSIONS],
      capabilities: capabilitiesOf(runtime, "modern", false, parts.tasks !== undefined),
      ...(info.instructions === undefined ? {} : { instructions: info.instructions }),
    }),
    cache: () => ({ ttlMs: parts.discoverTtlMs, scope: "public" }),
  });
  on("tools/list", {
    era: "both",
    run: ({ scope }) => ({ tools: runtime.listTools(runtime.viewFor(scope.authInfo), scope.authInfo) }),
    cache: definitions,
  });
  on("tools/call", { era: "both", run: (call) => callTool(parts, call) });
  on("logging/setLevel", {
    era: "legacy",
    run: ({ params, scope }) => {
      // A stateless request accepts it for clients that always send it, and keeps nothing.
      const level = checkLogLevel(params);
      if (scope.connection) scope.connection.logLevel = level;
      return {};
    },
  });
  if (runtime.hasResources) {
    on("resources/list", {
      era: "both",
      run: async (call) => ({ resources: await runtime.listResources(base(call)) }),
      cache: (call) => perCaller(runtime.resourceListCache, call),
    });
    on("resources/templates/list", {
      era: "both",
      run: ({ scope }) => ({ resourceTemplates: runtime.listResourceTemplates(scope.authInfo) }),
      cache: definitions,
    });
    on("resources/read", {
      era: "both",
      run: (call) =>
        runtime.readResource(
          requireString("resources/read", call.params, "uri", "the resource URI (a non-empty string)"),
          base(call),
          call.frame,
        ),
      // A read answered per caller (scopes, canAccess) is private too: a shared cache must not
      // hand it to a caller who may not read it.
      cache: (call) => perCaller(runtime.resourceCache(String(call.params.uri)), call),
    });
    on("resources/subscribe", {
      era: "legacy",
      connectionOnly: true,
      run: ({ params, scope }) => {
        const uri = requireString("resources/subscribe", params, "uri", "the resource URI (a non-empty string)");
        const access = runtime.access(scope.authInfo, "resource", uri);
        if (!access.ok && !access.hidden) {
          throw insufficientScopeError(`resources/subscribe ${uri}`, access, scope.authInfo);
        }
        if (!runtime.knowsResource(uri, scope.authInfo)) {
          throw new JsonRpcError(
            JsonRpcCode.ResourceNotFound,
            `Resource not found: ${uri}; subscribe to a URI from resources/list or a resource template`,
          );
        }
        scope.connection?.subscriptions.add(uri);
        return {};
      },
    });
    on("resources/unsubscribe", {
      era: "legacy",
      connectionOnly: true,
      run: ({ params, scope }) => {
        const uri = requireString("resources/unsubscribe", params, "uri", "the resource URI (a non-empty string)");
        scope.connection?.subscriptions.delete(uri);
        return {};
      },
    });
  }
  if (runtime.hasPrompts) {
    on("prompts/list", {
      era: "both",
      run: ({ scope }) => ({ prompts: runtime.listPrompts(scope.authInfo) }),
      cache: definitions,
    });
    on("prompts/get", { era: "both", run: (call) => getPrompt(parts, call) });
  }
  if (runtime.hasResources || runtime.hasPrompts) {
    on("completion/complete", {
      era: "both",
      run: (call) => {
        const { ref, argument, context } = completionParams(call.params);
        return runtime.complete(ref, argument, context, base(call));
      },
    });
  }
  on("subscriptions/listen", { era: "modern", run: (call) => listen(parts, call) });
  const tasks = parts.tasks;
  if (tasks) {
    // Checked before the task is looked up: a request without the extension learns nothing of tasks.
    const gated = (run: (call: Call) => Promise<unknown>) => (call: Call) => {
      if (!declaresTasks(call.envelope)) throw tasksRequired(`${call.method} needs it`);
      return run(call);
    };
    on("tasks/get", { era: "modern", run: gated((call) => tasks.get(call)) });
    on("tasks/update", { era: "modern", run: gated((call) => tasks.update(call)) });
    on("tasks/cancel", { era: "modern", run: gated((call) => tasks.cancel(call)) });
  }
  return methods;
}
