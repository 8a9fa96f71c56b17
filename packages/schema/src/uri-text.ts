import { InvalidArgumentsError } from "@toolshed/errors";

/** A `%` not followed by two hex digits: the text is not percent-encoding at all. */
const BROKEN_ESCAPE = /%(?![0-9A-Fa-f]{2})/;

/**
 * A URI template variable as text, with a hint (-32602) when it cannot be: a broken `%` escape,
 * bytes that are not UTF-8 or encode a lone surrogate (`%ED%A0%80`), or a NUL, which no name
 * holds (PostgreSQL could not even look one up). `noun` names what the variable is, e.g. "note title".
 */
export function decodeUriVariable(raw: string, variable: string, noun: string): string {
  let text: string;
  try {
    text = decodeURIComponent(raw);
  } catch {
    if (BROKEN_ESCAPE.test(raw)) {
      throw new InvalidArgumentsError(
        `${variable} in the URI is not valid percent-encoding (got ${JSON.stringify(raw)}); encode it with encodeURIComponent`,
        [{ path: variable, message: "must be percent-encoded UTF-8" }],
      );
    }
    throw new InvalidArgumentsError(
      `${variable} in the URI does not decode to text (got ${JSON.stringify(raw)}): its bytes are not UTF-8 or encode half of a surrogate pair; percent-encode the UTF-8 of the whole text, as encodeURIComponent does`,
      [{ path: variable, message: "must be percent-encoded UTF-8 text" }],
    );
  }
  if (text.includes("\u0000")) {
    throw new InvalidArgumentsError(`${variable} in the URI holds a NUL character (%00), which no ${noun} has`, [
      { path: variable, message: "must not contain the NUL character" },
    ]);
  }
  return text;
}
