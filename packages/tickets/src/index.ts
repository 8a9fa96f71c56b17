/**
 * @toolshed/tickets: the tickets pack (tools, resources, prompts) and its SQLite store. The
 * PostgreSQL store is in `@toolshed/tickets/postgres`.
 *
 * This file defines the complete public surface of the package. Any new export added here
 * becomes public API. Use named exports, not wildcards.
 */
export { type TicketsPackOptions, ticketsPack } from "./pack.js";
export { ticketMarkdown } from "./render-markdown.js";
export { seedDemo } from "./seed.js";
export { TICKETS_MIGRATION_SCOPE, TICKETS_SQLITE_MIGRATIONS } from "./sqlite/migrations.js";
export { SqliteTicketsStore, type SqliteTicketsStoreOptions } from "./sqlite/store.js";
export {
  type AddedComment,
  type CreatedTicket,
  MAX_COMMENTS_PAGE,
  MAX_TICKETS_PAGE,
  type NewTicket,
  type SimilarTicket,
  type StatusChange,
  type Ticket,
  type TicketComment,
  type TicketPage,
  type TicketPriority,
  type TicketSearchHit,
  type TicketStatus,
  type TicketSummary,
  type TicketsStore,
  type TicketWithComments,
  type WriteOptions,
} from "./store.js";
export {
  formatTicketId,
  parseTicketId,
  TICKET_ID_PATTERN,
  ticketNotFoundError,
  ticketNumberTypos,
} from "./ticket-id.js";
export { toolshedPack } from "./toolshed-pack.js";
