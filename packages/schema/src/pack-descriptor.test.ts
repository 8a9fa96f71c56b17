import { describe, expect, it } from "vitest";
import { z } from "zod";
import { definePack } from "./pack.js";
import { definePackDescriptor, isPackDescriptor } from "./pack-descriptor.js";

const base = {
  name: "weather",
  version: "1.2.0",
  description: "Forecasts",
  pack: () => definePack({ name: "weather" }),
};

describe("definePackDescriptor", () => {
  it("publishes the JSON Schema of the options, and an empty object's when there are none", () => {
    const descriptor = definePackDescriptor({
      ...base,
      options: z.object({ units: z.enum(["metric", "imperial"]).default("metric").describe("Units") }).strict(),
    });
    expect(isPackDescriptor(descriptor)).toBe(true);
    expect(descriptor.optionsJsonSchema).toEqual({
      type: "object",
      properties: { units: { type: "string", enum: ["metric", "imperial"], default: "metric", description: "Units" } },
      additionalProperties: false,
    });
    expect(definePackDescriptor(base).optionsJsonSchema).toEqual({
      type: "object",
      properties: {},
      additionalProperties: false,
    });
  });

  it("refuses what a server could not use, saying what would work", () => {
    expect(() => definePackDescriptor({ ...base, version: "latest" })).toThrowError(
      `version must be the package's semver version, such as "1.2.0"`,
    );
    expect(() => definePackDescriptor({ ...base, description: " " })).toThrowError(
      "description must say in one line what the pack is for",
    );
    expect(() => definePackDescriptor({ ...base, options: z.string() as never })).toThrowError(
      "options must be a Zod object, such as z.object({ timeoutMs: … })",
    );
    expect(() =>
      definePackDescriptor({ ...base, stores: { sqlite: { schema: {}, open: () => ({}) } as never } }),
    ).toThrowError("stores.sqlite must be a function returning { schema, open }");
    expect(isPackDescriptor({ ...base, kind: "pack" })).toBe(false);
  });
});
