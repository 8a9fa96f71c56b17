/**
 * @toolshed/notes: the notes pack (tools, resources, prompts) and its SQLite store. The PostgreSQL
 * store is in `@toolshed/notes/postgres`.
 *
 * This file defines the complete public surface of the package. Any new export added here
 * becomes public API. Use named exports, not wildcards.
 */
export { DEMO_NOTES } from "./demo-notes.js";
export { NOTE_LIMITS } from "./limits.js";
export { type NotesPackOptions, notesPack } from "./pack.js";
export { noteUri } from "./resources/note.js";
export { seedDemo } from "./seed.js";
export { NOTES_MIGRATION_SCOPE, NOTES_SQLITE_MIGRATIONS } from "./sqlite/migrations.js";
export { SqliteNotesStore, type SqliteNotesStoreOptions } from "./sqlite/store.js";
export type {
  NewNote,
  Note,
  NoteChanges,
  NoteListPage,
  NoteSearchHit,
  NoteSummary,
  NotesStore,
} from "./store.js";
export { toolshedPack } from "./toolshed-pack.js";
