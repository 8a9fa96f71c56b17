/** How an account name is stored: trimmed, inner whitespace collapsed. */
export function normalizeAccountName(name: string): string {
  return name.trim().replace(/\s+/g, " ");
}

/** What makes two names the same account: case and Unicode width do not count. */
export function accountNameKey(name: string): string {
  return normalizeAccountName(name).normalize("NFKC").toLowerCase();
}
