import { isToolError } from "@toolshed/errors";
import { DEMO_NOTES } from "./demo-notes.js";
import type { NotesStore } from "./store.js";

/**
 * Fills a store with a few dozen demo notes. Safe to call again, also from two processes at
 * once: notes whose title exists are left as they are. Returns how many notes it created.
 */
export async function seedDemo(store: NotesStore): Promise<{ created: number }> {
  let created = 0;
  for (const note of DEMO_NOTES) {
    if (await store.getNote(note.title)) continue;
    try {
      await store.createNote(note);
      created++;
    } catch (error) {
      // Another seeder created it between the check and the write.
      if (!(isToolError(error) && error.code === "conflict")) throw error;
    }
  }
  return { created };
}
