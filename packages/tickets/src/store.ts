/** Status a ticket can have. */
export type TicketStatus = "open" | "closed";

export type TicketPriority = "low" | "normal" | "high" | "urgent";

/** What search and listings return for each ticket. Times are ISO 8601 strings (UTC). */
export interface TicketSummary {
  /** Readable id such as `T-1001`. */
  id: string;
  title: string;
  status: TicketStatus;
  priority: TicketPriority;
  updated_at: string;
}

/** A search hit: the summary plus an excerpt of the body with matched words in `**`. */
export interface TicketSearchHit extends TicketSummary {
  snippet: string;
}

export interface Ticket {
  id: string;
  title: string;
  body: string;
  status: TicketStatus;
  priority: TicketPriority;
  /** Set while the ticket is closed; null when open. */
  resolution: string | null;
  created_at: string;
  updated_at: string;
}

export interface TicketComment {
  /** Increasing integer, unique across all tickets. */
  id: number;
  body: string;
  created_at: string;
}

/** A ticket with one page of its comments: the latest ones, oldest first. */
export interface TicketWithComments extends Ticket {
  /** All comments of the ticket, not only this page. */
  comment_count: number;
  comments: TicketComment[];
  /** Pass as `commentsCursor` to read the page of older comments; null when there are none. */
  next_comments_cursor: string | null;
}

export interface SimilarTicket {
  id: string;
  title: string;
}

export interface NewTicket {
  title: string;
  body: string;
  priority: TicketPriority;
}

export interface CreatedTicket {
  ticket: Ticket;
  /** Open tickets sharing two or more meaningful words with the new one's title, best first (at most 5). */
  similar: SimilarTicket[];
}

export interface StatusChange {
  ticket: Ticket;
  previous_status: TicketStatus;
  /** False when the ticket already had this status and resolution (nothing was written). */
  changed: boolean;
}

export interface AddedComment {
  ticket_id: string;
  comment: TicketComment;
  comment_count: number;
}

export interface TicketPage {
  tickets: TicketSummary[];
  /** Pass as `cursor` for the next page; null at the end. */
  next_cursor: string | null;
}

export interface WriteOptions {
  /** Same key and arguments: the first result again, nothing written. Other arguments: ConflictError. */
  idempotencyKey?: string;
}

/** Most comments one page of {@link TicketsStore.getTicket} returns. */
export const MAX_COMMENTS_PAGE = 100;
/** Most tickets one search or listing returns. */
export const MAX_TICKETS_PAGE = 50;

/**
 * Where tickets live. Every method is async so that a networked database can implement it; the
 * tools talk only to this interface. Failures are `@toolshed/errors` classes: NotFoundError for an
 * unknown ticket id (naming the closest ids), ConflictError for a reused idempotency key,
 * InvalidArgumentsError for a cursor that is not one; driver errors are left for classifyError.
 */
export interface TicketsStore {
  /** Full-text search over title and body, best match first; any text is a safe query. */
  searchTickets(query: { text: string; status: TicketStatus | "any"; limit: number }): Promise<TicketSearchHit[]>;
  /** One ticket with its latest comments (or the page before `commentsCursor`). */
  getTicket(id: string, options?: { commentsLimit?: number; commentsCursor?: string }): Promise<TicketWithComments>;
  createTicket(ticket: NewTicket, options?: WriteOptions): Promise<CreatedTicket>;
  /** Closing needs a resolution; reopening clears it. */
  updateTicketStatus(id: string, change: { status: TicketStatus; resolution?: string }): Promise<StatusChange>;
  addComment(id: string, body: string, options?: WriteOptions): Promise<AddedComment>;
  /** Most recently updated first, keyset-paginated. */
  listTickets(options: { status?: TicketStatus | "any"; limit: number; cursor?: string }): Promise<TicketPage>;
  /** Ids that start with what was typed (`T-10`, `10`), at most `limit`; recent ones for empty input. */
  completeTicketIds(prefix: string, limit: number): Promise<string[]>;
  close(): Promise<void>;
}
