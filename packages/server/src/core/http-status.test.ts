import { describe, expect, it } from "vitest";
import { EnvelopeError, missingCapability } from "../envelope.js";
import { JsonRpcCode, JsonRpcError } from "../jsonrpc-error.js";
import { methodNotFound } from "./answer.js";
import { httpStatusOf } from "./http-status.js";

describe("httpStatusOf", () => {
  it("gives a 2026-07-28 error its status by class, then by code", () => {
    const envelope = new EnvelopeError("params._meta is missing");
    expect(envelope.code).toBe(JsonRpcCode.InvalidParams);
    expect(httpStatusOf(envelope, "modern")).toBe(400);
    expect(httpStatusOf(methodNotFound(), "modern")).toBe(404);
    expect(httpStatusOf(missingCapability("elicitation", "ask"), "modern")).toBe(400);
    const unsupported = new JsonRpcError(JsonRpcCode.UnsupportedProtocolVersion, "Unsupported protocol version");
    expect(httpStatusOf(unsupported, "modern")).toBe(400);
    expect(httpStatusOf(new JsonRpcError(JsonRpcCode.HeaderMismatch, "mismatch"), "modern")).toBe(400);
  });

  it("keeps other errors, and every 2025 answer, at 200", () => {
    // Bad tool arguments or an unknown tool are -32602 too, but the envelope was fine.
    expect(httpStatusOf(new JsonRpcError(JsonRpcCode.InvalidParams, "Unknown tool: x"), "modern")).toBe(200);
    expect(httpStatusOf(new JsonRpcError(JsonRpcCode.InternalError, "Internal error"), "modern")).toBe(200);
    expect(httpStatusOf(new EnvelopeError("bad"), "legacy")).toBe(200);
    expect(httpStatusOf(methodNotFound(), "legacy")).toBe(200);
  });
});
