/** Bounds on what a note may hold; the tools' schemas and every store keep to them. */
export const NOTE_LIMITS = {
  titleMaxChars: 200,
  bodyMaxChars: 100_000,
  tagMaxChars: 40,
  tagsPerNote: 20,
  idempotencyKeyMaxChars: 200,
} as const;
