import { InvalidArgumentsError } from "@toolshed/errors";
import { decodeCursor, encodeCursor } from "@toolshed/storage";

// The same cursor shape and messages as SqliteNotesStore, so a cursor means the same on both stores.

/** The title a page starts after; "" without a cursor. A cursor of another tag's list is refused. */
export function titleAfter(cursor: string | undefined, tag: string | undefined): string {
  if (cursor === undefined) return "";
  const position = decodeCursor(cursor, { after: "string", tag: "string" });
  if (position.tag !== (tag ?? "")) {
    const [was, fix] =
      position.tag === ""
        ? ["without a tag", "omit tag"]
        : [`with tag '${position.tag}'`, `pass tag '${position.tag}'`];
    throw new InvalidArgumentsError(
      `cursor belongs to list_notes ${was}; ${fix} with this cursor, or omit the cursor to start over`,
      [{ path: "cursor", message: `belongs to the list ${was}` }],
    );
  }
  return String(position.after);
}

/** The cursor of the page after the one that ends with `lastTitle`. */
export function nextCursor(lastTitle: string, tag: string | undefined): string {
  return encodeCursor({ after: lastTitle, tag: tag ?? "" });
}
