import { InvalidArgumentsError } from "@toolshed/errors";
import { decodeCursor } from "@toolshed/storage";
import { isInt4 } from "../comments-cursor.js";
import type { AddedComment, CreatedTicket, Ticket, TicketComment, TicketSummary } from "../store.js";
import { formatTicketId } from "../ticket-id.js";

/** A tickets row as pg returns it: integers as numbers, TIMESTAMPTZ as Date. */
export interface TicketRow {
  num: number;
  title: string;
  body: string;
  status: Ticket["status"];
  priority: Ticket["priority"];
  resolution: string | null;
  created_at: Date;
  updated_at: Date;
}
export type SummaryRow = Pick<TicketRow, "num" | "title" | "status" | "priority" | "updated_at">;
export interface CommentRow {
  id: number;
  body: string;
  created_at: Date;
}

export const TICKET_COLUMNS = "num, title, body, status, priority, resolution, created_at, updated_at";
export const SUMMARY_COLUMNS = "num, title, status, priority, updated_at";

export function toTicket(row: TicketRow): Ticket {
  return {
    id: formatTicketId(row.num),
    title: row.title,
    body: row.body,
    status: row.status,
    priority: row.priority,
    resolution: row.resolution,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function toSummary(row: SummaryRow): TicketSummary {
  return {
    id: formatTicketId(row.num),
    title: row.title,
    status: row.status,
    priority: row.priority,
    updated_at: row.updated_at.toISOString(),
  };
}

export function toComment(row: CommentRow): TicketComment {
  return { id: row.id, body: row.body, created_at: row.created_at.toISOString() };
}

// JSONB reorders object keys; a replayed result is rebuilt in the order of a fresh one, so the
// JSON text a tool sends for a retry is the same as for the first call.
export function canonicalCreated(result: CreatedTicket): CreatedTicket {
  const t = result.ticket;
  return {
    ticket: {
      id: t.id,
      title: t.title,
      body: t.body,
      status: t.status,
      priority: t.priority,
      resolution: t.resolution,
      created_at: t.created_at,
      updated_at: t.updated_at,
    },
    similar: result.similar.map((s) => ({ id: s.id, title: s.title })),
  };
}

export function canonicalAdded(result: AddedComment): AddedComment {
  const c = result.comment;
  return {
    ticket_id: result.ticket_id,
    comment: { id: c.id, body: c.body, created_at: c.created_at },
    comment_count: result.comment_count,
  };
}

// What toISOString writes; anything else in a cursor was not made by this store.
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The position a listing cursor points after, checked to be one this store could have made. */
export function listCursorPosition(cursor: string, status: string): { u: string; n: number } {
  const position = decodeCursor(cursor, { u: "string", n: "number", s: "string" });
  if (position.s !== status) {
    throw new InvalidArgumentsError("cursor belongs to a listing with another status; omit it to start over", [
      { path: "cursor", message: "must be next_cursor from the previous page of this list" },
    ]);
  }
  const u = String(position.u);
  const n = Number(position.n);
  if (!ISO_TIME.test(u) || Number.isNaN(Date.parse(u)) || !isInt4(n)) {
    throw new InvalidArgumentsError(
      "cursor is not valid; pass next_cursor from the previous page unchanged, or omit it",
      [{ path: "cursor", message: "must be next_cursor from the previous page of this list" }],
    );
  }
  return { u, n };
}
