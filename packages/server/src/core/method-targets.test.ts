import { describe, expect, it } from "vitest";
import { guardedTarget, METHOD_TARGETS, targetName } from "./method-targets.js";

describe("method targets", () => {
  it("names the tool, prompt or resource a request's params give, and nothing for other methods", () => {
    expect(targetName("tools/call", { name: "get_note", arguments: {} })).toBe("get_note");
    expect(targetName("prompts/get", { name: "summarize" })).toBe("summarize");
    expect(targetName("resources/read", { uri: "notes://n/1" })).toBe("notes://n/1");
    expect(targetName("tools/list", {})).toBeUndefined();
    expect(targetName("tools/call", { name: "" })).toBeUndefined();
    expect(targetName("tools/call", { name: 5 })).toBeUndefined();
    expect(targetName("tools/call", null)).toBeUndefined();
    expect(targetName("completion/complete", { ref: { type: "ref/prompt", name: "p" } })).toBeUndefined();
  });

  it("gives the access check its definition, completion through params.ref", () => {
    expect(guardedTarget("tools/call", { name: "t" })).toEqual({ kind: "tool", key: "t" });
    expect(guardedTarget("resources/subscribe", { uri: "u://1" })).toEqual({ kind: "resource", key: "u://1" });
    expect(guardedTarget("completion/complete", { ref: { type: "ref/prompt", name: "p" } })).toEqual({
      kind: "prompt",
      key: "p",
    });
    expect(guardedTarget("completion/complete", { ref: { type: "ref/resource", uri: "u://{id}" } })).toEqual({
      kind: "resourceTemplate",
      key: "u://{id}",
    });
    expect(guardedTarget("completion/complete", { ref: { type: "ref/other", name: "p" } })).toBeUndefined();
    // Leaving a subscription needs no right.
    expect(guardedTarget("resources/unsubscribe", { uri: "u://1" })).toBeUndefined();
    expect(guardedTarget("tools/list", {})).toBeUndefined();
  });

  it("puts Mcp-Name on exactly tools/call, prompts/get, resources/read and the tasks extension's methods", () => {
    const withHeader = [...METHOD_TARGETS].filter(([, t]) => t.header).map(([m, t]) => [m, t.field]);
    expect(withHeader).toEqual([
      ["tools/call", "name"],
      ["prompts/get", "name"],
      ["resources/read", "uri"],
      ["tasks/get", "taskId"],
      ["tasks/update", "taskId"],
      ["tasks/cancel", "taskId"],
    ]);
  });
});
