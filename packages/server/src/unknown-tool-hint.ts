import { closestToolNames } from "@toolshed/errors";
import { JsonRpcCode, JsonRpcError } from "./jsonrpc-error.js";

type Handler = (request: { params?: { name?: unknown } }, extra: unknown) => unknown;

/** What both SDK lines' McpServer keep, as far as it is read here (not part of their typed API). */
interface SdkInternals {
  readonly server: object;
  readonly _registeredTools?: Record<string, { enabled?: boolean }>;
}

const HINTED = Symbol("toolshed.unknownToolHint");

/** The unknown-tool message createServer answers with: the closest names the caller can call. */
export function unknownToolMessage(name: string, known: readonly string[]): string {
  const closest = closestToolNames(name, known, 3);
  return `Unknown tool: ${name}${closest.length > 0 ? `. Closest tools: ${closest.join(", ")}` : "; this server has no tools"}`;
}

/**
 * Makes an SDK McpServer answer a call to an unknown tool with the closest enabled tool names
 * (createServer's text), in the SDK's own shape: an isError result on 1.x, JSON-RPC -32602 on v2.
 * The SDKs have no hook for it, so the McpServer's tools/call handler is wrapped where they keep
 * it; when that is not where this expects it, the SDK's own answer stays.
 */
export function hintUnknownTools(mcpServer: object, shape: "result" | "error"): void {
  const sdk = mcpServer as SdkInternals;
  const handlers = (sdk.server as { _requestHandlers?: unknown })._requestHandlers;
  if (!(handlers instanceof Map)) return;
  const original = handlers.get("tools/call") as (Handler & { [HINTED]?: true }) | undefined;
  if (typeof original !== "function" || original[HINTED] || typeof sdk._registeredTools !== "object") return;
  const hinted: Handler & { [HINTED]?: true } = (request, extra) => {
    const name = request?.params?.name;
    const tools = sdk._registeredTools ?? {};
    if (typeof name !== "string" || Object.hasOwn(tools, name)) return original(request, extra);
    const known = Object.entries(tools)
      .filter(([, tool]) => tool.enabled !== false)
      .map(([toolName]) => toolName);
    const message = unknownToolMessage(name, known);
    if (shape === "result") return { content: [{ type: "text", text: message }], isError: true };
    throw new JsonRpcError(JsonRpcCode.InvalidParams, message);
  };
  hinted[HINTED] = true;
  handlers.set("tools/call", hinted);
}
