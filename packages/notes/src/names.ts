/**
 * How a title is stored and looked up: trimmed, in Unicode NFC, so "café" typed as one character
 * or as "e" and a combining accent is one note.
 */
export function normalizeNoteTitle(title: string): string {
  return title.trim().normalize("NFC");
}
