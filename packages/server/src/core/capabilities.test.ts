import { definePack, definePrompt, defineResource, defineTool } from "@toolshed/schema";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createLogger } from "../logger.js";
import { Runtime } from "../runtime/runtime.js";
import { capabilitiesOf } from "./capabilities.js";

const logger = createLogger({ level: "silent" });
const tool = defineTool({ name: "t", description: "T.", input: z.object({}), handler: () => "" });
const runtimeOf = (withResources: boolean, withPrompts: boolean) =>
  new Runtime({
    logger,
    packs: [
      definePack({
        name: "p",
        tools: [tool],
        resources: withResources
          ? [defineResource({ uri: "a://1", name: "one", description: "One", read: () => "" })]
          : [],
        prompts: withPrompts
          ? [definePrompt({ name: "hi", description: "Hi", args: z.object({}), render: () => "" })]
          : [],
      }),
    ],
  });

describe("capabilitiesOf", () => {
  it("offers only what the packs have", () => {
    expect(capabilitiesOf(runtimeOf(false, false), "legacy", true)).toEqual({
      tools: { listChanged: false },
      logging: {},
    });
    expect(capabilitiesOf(runtimeOf(false, true), "legacy", false)).toEqual({
      tools: { listChanged: false },
      logging: {},
      prompts: { listChanged: false },
      completions: {},
    });
  });

  it("offers resource changes where a stream can carry them: 2026-07-28 and 2025 connections, not stateless 2025", () => {
    const runtime = runtimeOf(true, false);
    const live = { listChanged: true, subscribe: true };
    expect(capabilitiesOf(runtime, "modern", false).resources).toEqual(live);
    expect(capabilitiesOf(runtime, "legacy", true).resources).toEqual(live);
    expect(capabilitiesOf(runtime, "legacy", false).resources).toEqual({ listChanged: false });
  });
});
