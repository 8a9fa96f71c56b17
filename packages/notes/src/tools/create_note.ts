import { defineTool } from "@toolshed/schema";
import { z } from "zod";
import { noteUri } from "../resources/note.js";
import { idempotencyKey, noteBody, noteOutput, noteTags, noteTitle, toNoteOutput } from "../schemas.js";
import type { NotesStore } from "../store.js";

export const createNoteInput = z.object({
  title: noteTitle.describe("Title of the new note, unique; 1-200 characters, trimmed"),
  body: noteBody.describe("Text of the note (markdown), up to 100000 characters"),
  tags: noteTags
    .optional()
    .describe('Up to 20 tags of 1-40 characters, e.g. ["work", "ideas"]; stored lowercase, duplicates dropped'),
  idempotency_key: idempotencyKey
    .optional()
    .describe(
      "Any unique string (up to 200 characters) to make retries safe: a repeat with the same key and note returns the first result and creates nothing",
    ),
});

export function createNoteTool(store: NotesStore) {
  return defineTool({
    name: "create_note",
    title: "Create note",
    description:
      "Create a note with a new, unique title. To change an existing note use update_note. Pass idempotency_key when the call may be retried.",
    input: createNoteInput,
    output: noteOutput,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    handler: async ({ title, body, tags, idempotency_key }, ctx) => {
      const note = await store.createNote({ title, body, tags }, { idempotencyKey: idempotency_key });
      ctx.resourceUpdated?.(noteUri(note.title));
      ctx.resourceListChanged?.();
      return toNoteOutput(note);
    },
  });
}
