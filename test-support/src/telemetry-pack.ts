import { BatchCollector } from "@toolshed/errors";
import { definePack, defineTool } from "@toolshed/schema";
import { z } from "zod";

/** Text a masked error must never show a client, nor put in a span or a metric. */
export const TELEMETRY_SECRET = "password=hunter2 at db.internal:5432";

/**
 * A pack whose three tools end three ways: a result (add; b over 100 is invalid arguments), an
 * unexpected exception carrying a secret (boom, masked), and a partial batch (bulk).
 */
export const telemetryPack = definePack({
  name: "calc",
  tools: [
    defineTool({
      name: "add",
      description: "Adds two numbers.",
      input: z.object({ a: z.number().describe("First"), b: z.number().max(100).describe("Second, at most 100") }),
      output: z.number(),
      handler: ({ a, b }) => a + b,
    }),
    defineTool({
      name: "boom",
      description: "Fails unexpectedly.",
      input: z.object({}),
      handler: () => {
        throw new Error(TELEMETRY_SECRET);
      },
    }),
    defineTool({
      name: "bulk",
      description: "Updates two items; the second fails.",
      input: z.object({}),
      output: z.object({
        succeeded_count: z.number(),
        failed_count: z.number(),
        succeeded: z.array(z.string()),
        failed: z.array(z.object({ id: z.string(), reason: z.string(), message: z.string(), retryable: z.boolean() })),
      }),
      handler: () => {
        const batch = new BatchCollector<string>();
        batch.succeed("a");
        batch.fail("b", { reason: "archived", message: "Item b is archived", retryable: false });
        return batch.result();
      },
    }),
  ],
});
