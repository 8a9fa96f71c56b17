import { decodeUriVariable, defineResourceTemplate } from "@toolshed/schema";
import { z } from "zod";
import { normalizeNoteTitle } from "../names.js";
import { noteNotFound } from "../not-found.js";
import type { NotesStore } from "../store.js";

const COMPLETIONS = 20;
const LISTED = 50;

/** The URI of a note; titles are percent-encoded so `/`, `,` and spaces survive. */
export function noteUri(title: string): string {
  return `note://${encodeURIComponent(title)}`;
}

/** The title a URI names: decoded, then normalised as titles are stored. */
function decodeTitle(raw: string): string {
  return normalizeNoteTitle(decodeUriVariable(raw, "title", "note title"));
}

export function noteResource(store: NotesStore) {
  return defineResourceTemplate({
    uriTemplate: "note://{title}",
    name: "note",
    title: "Note",
    description: `A note's body as markdown, by its percent-encoded title. resources/list shows the first ${LISTED} notes by title; list_notes pages through all.`,
    mimeType: "text/markdown",
    params: z.object({ title: z.string().min(1).max(2000).describe("Title of the note, percent-encoded") }),
    complete: { title: (value) => store.titlesWithPrefix(value.normalize("NFC"), COMPLETIONS) },
    list: async () => {
      const { notes } = await store.listNotes({ limit: LISTED });
      return notes.map((n) => ({ uri: noteUri(n.title), name: n.title }));
    },
    read: async ({ title: raw }) => {
      const title = decodeTitle(raw);
      const note = await store.getNote(title);
      if (!note) throw await noteNotFound(store, title);
      return note.body;
    },
  });
}
