import { fileURLToPath } from "node:url";
import { definePack, defineTool } from "@toolshed/schema";
import { checkPackContract, connectPack, expectInvalidArguments, expectToolResult, fuzzPack } from "@toolshed/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const add = defineTool({
  name: "add",
  description: "Add two whole numbers.",
  input: z.object({
    a: z.number().int().min(-1000).max(1000).describe("First number"),
    b: z.number().int().min(-1000).max(1000).describe("Second number"),
  }),
  output: z.number(),
  annotations: { readOnlyHint: true },
  handler: ({ a, b }) => a + b,
});
const mathPack = definePack({ name: "math", tools: [add] });

describe("the math pack", () => {
  it("adds, and hints at a bad argument", async () => {
    await using conn = await connectPack(mathPack, { era: "2026-07-28" });
    expect(expectToolResult(await conn.call("add", { a: 1, b: 2 }))).toEqual({ result: 3 });
    expectInvalidArguments(await conn.call("add", { a: 1, b: 5000 }), "b");
  });

  it("answers anything a client may send", async () => {
    await fuzzPack(mathPack, { seed: 1, runs: 100 });
  });

  it("keeps its published contract", async () => {
    await checkPackContract(mathPack, fileURLToPath(new URL("math.contract.json", import.meta.url)));
  });
});
