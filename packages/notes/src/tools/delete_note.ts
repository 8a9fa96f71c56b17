import { defineTool } from "@toolshed/schema";
import { z } from "zod";
import { noteUri } from "../resources/note.js";
import { noteTitle } from "../schemas.js";
import type { NotesStore } from "../store.js";

export const deleteNoteInput = z.object({
  title: noteTitle.describe("Exact title of the note to delete"),
});

export const deleteNoteOutput = z.object({
  deleted: z.boolean().describe("true when the note was deleted, false when there was no note with this title"),
});

export function deleteNoteTool(store: NotesStore) {
  return defineTool({
    name: "delete_note",
    title: "Delete note",
    description:
      "Delete a note and its tags for good. Safe to repeat: deleting a note that does not exist answers deleted: false.",
    input: deleteNoteInput,
    output: deleteNoteOutput,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    handler: async ({ title }, ctx) => {
      const deleted = await store.deleteNote(title);
      if (deleted) {
        ctx.resourceUpdated?.(noteUri(title));
        ctx.resourceListChanged?.();
      }
      return { deleted };
    },
  });
}
