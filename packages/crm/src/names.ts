/**
 * How an account name is stored: trimmed, inner whitespace collapsed, in Unicode NFC (so an
 * accent typed as a combining mark is stored as the one character it looks like).
 */
export function normalizeAccountName(name: string): string {
  return name.trim().replace(/\s+/g, " ").normalize("NFC");
}

/** What makes two names the same account: case and Unicode width do not count. */
export function accountNameKey(name: string): string {
  return normalizeAccountName(name).normalize("NFKC").toLowerCase();
}
