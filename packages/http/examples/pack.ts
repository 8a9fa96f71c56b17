import { definePack, defineTool } from "@toolshed/schema";
import { z } from "zod";

// The one-tool pack every example serves; a real service mounts its own packs the same way.
export const countWords = defineTool({
  name: "count_words",
  description: "Counts the words in a text (runs of characters between spaces).",
  input: z.object({ text: z.string().max(10_000).describe("The text whose words to count") }),
  output: z.object({ words: z.number().int() }),
  annotations: { readOnlyHint: true },
  handler: ({ text }) => ({ words: text.split(/\s+/).filter((word) => word !== "").length }),
});

export const textPack = definePack({ name: "text", tools: [countWords] });

/** What each example's start function returns: the MCP endpoint's URL and how to stop. */
export interface Started {
  url: string;
  close(): Promise<void>;
}
