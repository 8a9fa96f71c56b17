import { type LoggingLevel, LoggingLevelSchema } from "@modelcontextprotocol/sdk/types.js";
import { JsonRpcCode, JsonRpcError } from "./jsonrpc-error.js";

// Param checks shared by the SDK binding and other transports' dispatchers, so a malformed
// request gets the same -32602 hint whichever way it came in (C12).

export type Params = Record<string, unknown>;

export function paramsOf(method: string, params: unknown): Params {
  if (params === undefined) return {};
  if (typeof params !== "object" || params === null || Array.isArray(params)) {
    throw new JsonRpcError(JsonRpcCode.InvalidParams, `Invalid params for ${method}: params must be an object`);
  }
  return params as Params;
}

export function requireString(method: string, params: Params, key: string, what: string): string {
  const value = params[key];
  if (typeof value !== "string" || value === "") {
    throw new JsonRpcError(JsonRpcCode.InvalidParams, `Invalid params for ${method}: params.${key} must be ${what}`);
  }
  return value;
}

export function optionalObject(method: string, params: Params, key: string): Params | undefined {
  const value = params[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new JsonRpcError(
      JsonRpcCode.InvalidParams,
      `Invalid params for ${method}: params.${key} must be an object of named values (got ${Array.isArray(value) ? "an array" : typeof value})`,
    );
  }
  return value as Params;
}

export function checkLogLevel(params: Params): LoggingLevel {
  const parsed = LoggingLevelSchema.safeParse(params.level);
  if (!parsed.success) {
    throw new JsonRpcError(
      JsonRpcCode.InvalidParams,
      `Invalid params for logging/setLevel: params.level must be one of ${LoggingLevelSchema.options.join(", ")}`,
    );
  }
  return parsed.data;
}

export function completionParams(params: Params): {
  ref: { type: string; name?: string; uri?: string };
  argument: { name: string; value: string };
  context: Record<string, string>;
} {
  const ref = optionalObject("completion/complete", params, "ref");
  const argument = optionalObject("completion/complete", params, "argument");
  if (!ref || typeof ref.type !== "string") {
    throw new JsonRpcError(
      JsonRpcCode.InvalidParams,
      "Invalid params for completion/complete: params.ref must be {type, name|uri}",
    );
  }
  if (!argument || typeof argument.name !== "string" || typeof argument.value !== "string") {
    throw new JsonRpcError(
      JsonRpcCode.InvalidParams,
      "Invalid params for completion/complete: params.argument must be {name, value} with string values",
    );
  }
  const context = optionalObject("completion/complete", params, "context");
  return {
    ref: ref as { type: string; name?: string; uri?: string },
    argument: { name: argument.name, value: argument.value },
    context: (context?.arguments ?? {}) as Record<string, string>,
  };
}
