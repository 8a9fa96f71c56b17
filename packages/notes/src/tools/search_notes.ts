import { InvalidArgumentsError } from "@toolshed/errors";
import { defineTool } from "@toolshed/schema";
import { z } from "zod";
import type { NotesStore } from "../store.js";

export const searchNotesInput = z.object({
  query: z
    .string()
    .trim()
    .min(1)
    .max(500)
    .describe("Words to find in titles and bodies; every word must match, word starts match (gro finds groceries)"),
  limit: z.number().int().min(1).max(50).default(10).describe("Most notes to return, best match first"),
});

export const searchNotesOutput = z.array(
  z.object({
    title: z.string().describe("Title of the note; pass it to get_note for the full text"),
    snippet: z.string().describe("A short part of the body with matched words marked **like this**"),
    updated_at: z.string().describe("When the note was last changed (ISO 8601, UTC)"),
  }),
);

// What the store's FTS treats as a word; text without one cannot match anything.
const WORD = /[\p{L}\p{N}]/u;

export function searchNotesTool(store: NotesStore) {
  return defineTool({
    name: "search_notes",
    title: "Search notes",
    description:
      "Full-text search over note titles and bodies, ranked best first (title matches rank higher). Returns titles with a snippet; read a whole note with get_note.",
    input: searchNotesInput,
    output: searchNotesOutput,
    annotations: { readOnlyHint: true, openWorldHint: false },
    handler: async ({ query, limit }) => {
      if (!WORD.test(query)) {
        throw new InvalidArgumentsError(
          `query ${JSON.stringify(query)} has no words to search for; use letters or digits (operators and punctuation are ignored), or browse with list_notes`,
          [{ path: "query", message: "must contain at least one letter or digit" }],
        );
      }
      return store.searchNotes(query, { limit });
    },
  });
}
