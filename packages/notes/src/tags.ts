/** Tags as stored: trimmed, lowercase, NFC, unique, sorted, empty ones dropped. */
export function normalizeTags(tags: readonly string[]): string[] {
  const clean = tags.map((t) => t.trim().toLowerCase().normalize("NFC")).filter((t) => t.length > 0);
  return [...new Set(clean)].sort();
}
