import { InvalidArgumentsError } from "@toolshed/errors";

/** An opaque page cursor: base64url JSON, so clients cannot build or depend on its contents. */
export function encodeCursor(position: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify(position), "utf8").toString("base64url");
}

/** What a cursor field holds: text, any finite number, or a position (a whole number, 0 or more). */
export type CursorField = "string" | "number" | "position";

/**
 * Reads a cursor made by {@link encodeCursor}, checking that it has the given keys and types.
 * A cursor that is not one (edited, truncated, from another list) is an invalid-arguments
 * error that says what works. Text with a NUL (which PostgreSQL refuses) or positions that are
 * negative or fractional never come from a real cursor, so they are refused here too.
 */
export function decodeCursor<K extends string>(
  cursor: string,
  shape: Record<K, CursorField>,
  names: { field?: string; next?: string } = {},
): Record<K, string | number> {
  const field = names.field ?? "cursor";
  const next = names.next ?? "next_cursor";
  const invalid = () =>
    new InvalidArgumentsError(`${field} is not valid; pass ${next} from the previous page unchanged, or omit it`, [
      { path: field, message: `must be ${next} from the previous page of this list` },
    ]);
  let value: unknown;
  try {
    const bytes = Buffer.from(cursor, "base64url");
    // Node's decoder skips junk; a cursor that does not re-encode to itself was edited.
    if (bytes.toString("base64url") !== cursor) throw invalid();
    value = JSON.parse(bytes.toString("utf8"));
  } catch {
    throw invalid();
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw invalid();
  const out = {} as Record<K, string | number>;
  for (const [key, type] of Object.entries(shape) as Array<[K, CursorField]>) {
    const v = (value as Record<string, unknown>)[key];
    const ok =
      type === "string"
        ? typeof v === "string" && !v.includes("\u0000")
        : type === "position"
          ? Number.isSafeInteger(v) && (v as number) >= 0
          : typeof v === "number" && Number.isFinite(v);
    if (!ok) throw invalid();
    out[key] = v as string | number;
  }
  return out;
}
