import { defineTool } from "@toolshed/schema";
import { z } from "zod";
import { noteTag } from "../schemas.js";
import type { NotesStore } from "../store.js";

export const listNotesInput = z.object({
  tag: noteTag.optional().describe("Only notes with this tag (case-insensitive), e.g. work"),
  limit: z.number().int().min(1).max(100).default(20).describe("Most notes per page"),
  cursor: z
    .string()
    .min(1)
    .max(1000)
    .optional()
    .describe("next_cursor from the previous page, unchanged; omit for the first page"),
});

export const listNotesOutput = z.object({
  notes: z
    .array(
      z.object({
        title: z.string().describe("Title of the note"),
        tags: z.array(z.string()).describe("Tags, lowercase and sorted"),
        updated_at: z.string().describe("When the note was last changed (ISO 8601, UTC)"),
      }),
    )
    .describe("Notes in title order"),
  next_cursor: z.string().nullable().describe("Pass as cursor for the next page; null on the last page"),
});

export function listNotesTool(store: NotesStore) {
  return defineTool({
    name: "list_notes",
    title: "List notes",
    description:
      "List notes in title order, a page at a time, optionally only those with a tag. Use search_notes to find notes by their words.",
    input: listNotesInput,
    output: listNotesOutput,
    annotations: { readOnlyHint: true, openWorldHint: false },
    handler: ({ tag, limit, cursor }) => store.listNotes({ tag, limit, cursor }),
  });
}
