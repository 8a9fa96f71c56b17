// Text from the server under audit reaches a terminal: controls and bidi overrides are shown, not obeyed.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;
/** Bidi overrides and isolates, zero-width and line-separator characters: invisible, yet they reorder or hide text. */
const INVISIBLE = /[\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

const hex = (c: string, width: number) => c.charCodeAt(0).toString(16).padStart(width, "0");

/**
 * The text with every control character as `\xHH` and every bidi or invisible format character
 * as `\uHHHH`, so a terminal prints it instead of obeying it.
 */
export function visible(text: string): string {
  return text.replace(CONTROLS, (c) => `\\x${hex(c, 2)}`).replace(INVISIBLE, (c) => `\\u${hex(c, 4)}`);
}

/**
 * JSON.stringify, with C1 controls, DEL and bidi characters escaped too (JSON.stringify escapes
 * only C0): the same value when parsed, and safe to print.
 */
export function safeJson(value: unknown): string {
  return JSON.stringify(value, null, 2)
    .replace(/[\u007f-\u009f]/g, (c) => `\\u${hex(c, 4)}`)
    .replace(INVISIBLE, (c) => `\\u${hex(c, 4)}`);
}

/** One line of at most `max` characters, cut with an ellipsis. */
export function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
