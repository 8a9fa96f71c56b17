import { defineTool } from "@toolshed/schema";
import { z } from "zod";
import { noteNotFound } from "../not-found.js";
import { countWords, noteTitle } from "../schemas.js";
import type { NotesStore } from "../store.js";

export const getNoteInput = z.object({
  title: noteTitle.describe("Exact title of the note, e.g. groceries"),
});

export const getNoteOutput = z.object({
  title: z.string().describe("Title of the note"),
  body: z.string().describe("Text of the note (markdown)"),
  words: z.number().int().min(0).describe("Number of whitespace-separated words in the body"),
});

export function getNoteTool(store: NotesStore) {
  return defineTool({
    name: "get_note",
    title: "Get note",
    description:
      "Return one note by its exact title: its body and word count. Find titles with search_notes (by words) or list_notes (browse, by tag).",
    input: getNoteInput,
    output: getNoteOutput,
    annotations: { readOnlyHint: true, openWorldHint: false },
    handler: async ({ title }) => {
      const note = await store.getNote(title);
      if (!note) throw await noteNotFound(store, title);
      return { title: note.title, body: note.body, words: countWords(note.body) };
    },
  });
}
