import { defineTool } from "@toolshed/schema";
import { z } from "zod";
import { noteNotFound } from "../not-found.js";
import { noteUri } from "../resources/note.js";
import { noteBody, noteOutput, noteTags, noteTitle, toNoteOutput } from "../schemas.js";
import type { NotesStore } from "../store.js";

export const updateNoteInput = z
  .object({
    title: noteTitle.describe("Exact title of the note to change"),
    body: noteBody.optional().describe("New text, replacing the whole body; omit to keep it"),
    tags: noteTags.optional().describe("New tags, replacing all of them ([] removes every tag); omit to keep them"),
    expected_version: z
      .number()
      .int()
      .min(1)
      // Versions are stored as 32-bit integers.
      .max(2_147_483_647)
      .optional()
      .describe("The version you last saw; if the note has changed since, nothing is written and you get a conflict"),
  })
  .refine((args) => args.body !== undefined || args.tags !== undefined, {
    message: "give body, tags or both; update_note needs something to change",
    path: ["body"],
  });

export function updateNoteTool(store: NotesStore) {
  return defineTool({
    name: "update_note",
    title: "Update note",
    description:
      "Replace the body and/or the tags of an existing note; its version goes up by 1. Pass expected_version to avoid overwriting someone else's change.",
    input: updateNoteInput,
    output: noteOutput,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    handler: async ({ title, body, tags, expected_version }, ctx) => {
      const note = await store.updateNote(title, { body, tags }, { expectedVersion: expected_version });
      if (!note) throw await noteNotFound(store, title);
      ctx.resourceUpdated?.(noteUri(note.title));
      return toNoteOutput(note);
    },
  });
}
