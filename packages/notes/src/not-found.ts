import { closestMatches, NotFoundError } from "@toolshed/errors";
import type { NotesStore } from "./store.js";

// Up to this many notes, a miss lists every title; beyond, only the closest ones.
const LIST_ALL_UP_TO = 10;
const CANDIDATES = 40;
const SHOWN = 5;

/** The not-found error for a title, naming the titles the caller may have meant. */
export async function noteNotFound(store: NotesStore, title: string): Promise<NotFoundError> {
  const first = await store.titlesWithPrefix("", LIST_ALL_UP_TO + 1);
  if (first.length === 0) {
    return new NotFoundError(`No note '${title}'. There are no notes yet; create one with create_note`);
  }
  if (first.length <= LIST_ALL_UP_TO) {
    return new NotFoundError(`No note '${title}'. Known titles: ${first.join(", ")}`);
  }
  const maxDistance = Math.max(2, Math.ceil(title.length * 0.4));
  const closest = closestMatches(title, await store.titlesNear(title, CANDIDATES), SHOWN, maxDistance);
  if (closest.length === 0) {
    return new NotFoundError(`No note '${title}', and no title is close; find notes with search_notes or list_notes`);
  }
  return new NotFoundError(`No note '${title}'. Closest titles: ${closest.join(", ")}`);
}
