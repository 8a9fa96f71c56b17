import { InvalidArgumentsError } from "@toolshed/errors";
import { defineTool } from "@toolshed/schema";
import { z } from "zod";
import { TicketSummarySchema } from "../schemas.js";
import type { TicketsStore } from "../store.js";

export const SearchTicketsInput = z.object({
  query: z.string().max(200).describe("Words to match in title or body, at most 200 characters"),
  status: z
    .enum(["open", "closed", "any"])
    .default("open")
    .describe('Which tickets to match: "open" (default), "closed" or "any"'),
  limit: z.number().int().min(1).max(50).default(10).describe("Most tickets to return, 1-50 (default 10)"),
});

export const SearchTicketsOutput = z.array(
  TicketSummarySchema.extend({
    snippet: z.string().describe("Excerpt of the body with matched words in **"),
  }),
);

// What the store's search treats as a word; text without one cannot match anything.
const WORD = /[\p{L}\p{N}]/u;

export function searchTicketsTool(store: TicketsStore) {
  return defineTool({
    name: "search_tickets",
    title: "Search tickets",
    description: "Search support tickets. Use before creating a ticket to avoid duplicates.",
    input: SearchTicketsInput,
    output: SearchTicketsOutput,
    annotations: { readOnlyHint: true, openWorldHint: false },
    handler: ({ query, status, limit }) => {
      // "[]" for a query with nothing to match reads to a model as "no tickets": say what works instead.
      if (!WORD.test(query)) {
        throw new InvalidArgumentsError(
          `query ${JSON.stringify(query)} has no words to search for; use letters or digits (operators and punctuation are ignored), or read a ticket you know with get_ticket`,
          [{ path: "query", message: "must contain at least one letter or digit" }],
        );
      }
      return store.searchTickets({ text: query, status, limit });
    },
  });
}
