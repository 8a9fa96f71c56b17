import { InvalidArgumentsError } from "@toolshed/errors";
import { decodeCursor } from "@toolshed/storage";

const INT4_MAX = 2 ** 31 - 1;

/** A non-negative integer that fits PostgreSQL's INTEGER (and SQLite's rowid). */
export const isInt4 = (n: number) => Number.isInteger(n) && n >= 0 && n <= INT4_MAX;

/** The comment id a comments cursor points before, checked for the ticket it was made for (both stores). */
export function commentsCursorPosition(cursor: string, id: string, num: number): number {
  const invalid = (why: string) =>
    new InvalidArgumentsError(
      `comments_cursor ${why}; pass next_comments_cursor from the previous get_ticket call for ${id} unchanged, or omit it for the latest comments`,
      [{ path: "comments_cursor", message: `must be next_comments_cursor from get_ticket for ${id}` }],
    );
  let position: Record<"t" | "c", string | number>;
  try {
    position = decodeCursor(cursor, { t: "number", c: "position" });
  } catch {
    throw invalid("is not valid");
  }
  if (position.t !== num) throw invalid("belongs to another ticket");
  // PostgreSQL would reject a non-integer parameter with an internal error; it is a bad cursor.
  if (!isInt4(Number(position.c))) throw invalid("is not valid");
  return Number(position.c);
}
