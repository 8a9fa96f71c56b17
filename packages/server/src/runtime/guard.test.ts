import { NotFoundError } from "@toolshed/errors";
import type { Logger } from "@toolshed/schema";
import { describe, expect, it } from "vitest";
import { JsonRpcCode, JsonRpcError } from "../jsonrpc-error.js";
import { capped, guard } from "./guard.js";
import type { RuntimeParts } from "./parts.js";

function recordingLogger(errors: unknown[]): Logger {
  const nothing = () => {};
  return { error: (...args: unknown[]) => errors.push(args), warn: nothing, info: nothing, debug: nothing } as Logger;
}

describe("guard", () => {
  it("passes results and JSON-RPC errors through as they are", async () => {
    const logger = recordingLogger([]);
    await expect(guard(logger, "read x", () => "body")).resolves.toBe("body");
    const own = new JsonRpcError(JsonRpcCode.InvalidParams, "bad uri");
    await expect(guard(logger, "read x", () => Promise.reject(own))).rejects.toBe(own);
  });

  it("answers a ToolError with its message, and masks anything else with a reference the log holds", async () => {
    const errors: unknown[] = [];
    const logger = recordingLogger(errors);
    const notFound = await guard(logger, "read note://x", () => {
      throw new NotFoundError("No note 'x'");
    }).catch((error: unknown) => error);
    expect(notFound).toBeInstanceOf(JsonRpcError);
    expect((notFound as JsonRpcError).message).toContain("No note 'x'");

    const masked = await guard(logger, "read note://x", () => {
      throw new Error("connection string postgres://secret");
    }).catch((error: unknown) => error as JsonRpcError);
    expect(masked.code).toBe(JsonRpcCode.InternalError);
    expect(masked.message).not.toContain("secret");
    const ref = /ref[^A-Za-z0-9]*([A-Za-z0-9_-]+)/.exec(masked.message)?.[1];
    expect(ref).toBeDefined();
    expect(JSON.stringify(errors)).toContain(ref as string);
  });
});

describe("capped", () => {
  const parts = (maxResultBytes?: number) => ({ options: { maxResultBytes } }) as unknown as RuntimeParts;

  it("lets an answer within the limit through and refuses a larger one, saying what to ask instead", () => {
    const answer = { contents: [{ uri: "a://1", text: "x".repeat(200) }] };
    expect(capped(parts(1000), "resources/read a://1", answer, "read less")).toBe(answer);
    expect(capped(parts(0), "resources/read a://1", answer, "read less")).toBe(answer);
    let refused: unknown;
    try {
      capped(parts(100), "resources/read a://1", answer, "read less");
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(JsonRpcError);
    expect((refused as JsonRpcError).message).toContain("read less");
    expect((refused as JsonRpcError).data).toMatchObject({ code: "too_large" });
  });
});
