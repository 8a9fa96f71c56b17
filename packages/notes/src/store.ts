/** A note as stored. Times are ISO 8601 strings (UTC). */
export interface Note {
  title: string;
  body: string;
  /** Lowercase, unique, sorted. */
  tags: string[];
  /** 1 when created; every update adds 1. */
  version: number;
  created_at: string;
  updated_at: string;
}

/** One row of a list: what a model needs to pick a note without reading its body. */
export interface NoteSummary {
  title: string;
  tags: string[];
  updated_at: string;
}

/** One search hit, best first; `snippet` marks matched words with `**`. */
export interface NoteSearchHit {
  title: string;
  snippet: string;
  updated_at: string;
}

export interface NoteListPage {
  notes: NoteSummary[];
  /** Opaque; pass it back to get the next page. Null on the last page. */
  next_cursor: string | null;
}

export interface NewNote {
  title: string;
  body: string;
  tags?: string[];
}

export interface NoteChanges {
  body?: string;
  /** Replaces every tag; `[]` removes them all. */
  tags?: string[];
}

/**
 * Where notes live. Every method is async so that a networked database (PostgreSQL) can
 * implement the same interface; the tools only ever talk to this.
 *
 * Failures the caller can act on are @toolshed/errors classes (ConflictError,
 * InvalidArgumentsError); anything else (for example a busy database) is left for
 * `classifyError`.
 */
export interface NotesStore {
  /** The note with exactly this title, or undefined. */
  getNote(title: string): Promise<Note | undefined>;

  /**
   * Full-text search over titles and bodies, best match first. Any text is a safe query
   * (operators and quotes are only words); text with no words finds nothing.
   */
  searchNotes(query: string, options: { limit: number }): Promise<NoteSearchHit[]>;

  /**
   * Notes ordered by title, a page at a time. A cursor that this list did not hand out is an
   * InvalidArgumentsError.
   */
  listNotes(options: { tag?: string; limit: number; cursor?: string }): Promise<NoteListPage>;

  /**
   * Creates a note at version 1. A title that exists is a ConflictError. With an idempotency key,
   * the same key and note return the first result and write nothing, also when calls race; the
   * same key with another note is a ConflictError.
   */
  createNote(note: NewNote, options?: { idempotencyKey?: string }): Promise<Note>;

  /**
   * Applies changes and adds 1 to the version; undefined when there is no such note. When
   * `expectedVersion` is given and the note is at another version, a ConflictError that names the
   * current one.
   */
  updateNote(title: string, changes: NoteChanges, options?: { expectedVersion?: number }): Promise<Note | undefined>;

  /** True when a note was deleted, false when there was none. */
  deleteNote(title: string): Promise<boolean>;

  /** Titles that start with `prefix` (case-insensitive), in title order, at most `limit`. */
  titlesWithPrefix(prefix: string, limit: number): Promise<string[]>;

  /**
   * A bounded set of existing titles that may be close to `title`, for "did you mean" hints:
   * its neighbours in title order and titles sharing its first letters. At most `limit`.
   */
  titlesNear(title: string, limit: number): Promise<string[]>;

  close(): Promise<void>;
}
