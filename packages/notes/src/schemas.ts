import { z } from "zod";
import { NOTE_LIMITS } from "./limits.js";
import type { Note } from "./store.js";

// Shared building blocks; each tool adds its own .describe() so every property says what it is.

// Titles and tags are names: trimmed and in NFC (see names.ts), so one name has one spelling.
export const noteTitle = z.string().trim().normalize("NFC").min(1).max(NOTE_LIMITS.titleMaxChars);

export const noteBody = z.string().max(NOTE_LIMITS.bodyMaxChars);

export const noteTag = z.string().trim().toLowerCase().normalize("NFC").min(1).max(NOTE_LIMITS.tagMaxChars);

export const noteTags = z.array(noteTag).max(NOTE_LIMITS.tagsPerNote);

export const idempotencyKey = z.string().trim().min(1).max(NOTE_LIMITS.idempotencyKeyMaxChars);

export const noteOutput = z.object({
  title: z.string().describe("Title of the note"),
  body: z.string().describe("Text of the note (markdown)"),
  tags: z.array(z.string()).describe("Tags, lowercase and sorted"),
  words: z.number().int().min(0).describe("Number of whitespace-separated words in the body"),
  version: z
    .number()
    .int()
    .min(1)
    .describe("1 when created, +1 on every update; pass it to update_note as expected_version"),
  created_at: z.string().describe("When the note was created (ISO 8601, UTC)"),
  updated_at: z.string().describe("When the note was last changed (ISO 8601, UTC)"),
});

/** Whitespace-separated words; an empty body has none. */
export function countWords(text: string): number {
  const trimmed = text.trim();
  return trimmed === "" ? 0 : trimmed.split(/\s+/u).length;
}

export function toNoteOutput(note: Note): z.output<typeof noteOutput> {
  return {
    title: note.title,
    body: note.body,
    tags: note.tags,
    words: countWords(note.body),
    version: note.version,
    created_at: note.created_at,
    updated_at: note.updated_at,
  };
}
