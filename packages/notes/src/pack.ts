import { definePack, type Pack } from "@toolshed/schema";
import { summarizeNotePrompt } from "./prompts/summarize_note.js";
import { noteResource } from "./resources/note.js";
import type { NotesStore } from "./store.js";
import { createNoteTool } from "./tools/create_note.js";
import { deleteNoteTool } from "./tools/delete_note.js";
import { getNoteTool } from "./tools/get_note.js";
import { listNotesTool } from "./tools/list_notes.js";
import { searchNotesTool } from "./tools/search_notes.js";
import { updateNoteTool } from "./tools/update_note.js";

export interface NotesPackOptions {
  store: NotesStore;
  /** Close the store when the server that mounts the pack closes (default false: the caller owns it). */
  closeStore?: boolean;
}

/** The notes tools, the `note://{title}` resource and the `summarize_note` prompt over one store. */
export function notesPack({ store, closeStore = false }: NotesPackOptions): Pack {
  return definePack({
    name: "notes",
    tools: [
      getNoteTool(store),
      searchNotesTool(store),
      listNotesTool(store),
      createNoteTool(store),
      updateNoteTool(store),
      deleteNoteTool(store),
    ],
    resources: [noteResource(store)],
    prompts: [summarizeNotePrompt(store)],
    close: closeStore ? () => store.close() : undefined,
  });
}
