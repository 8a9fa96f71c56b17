import { runBatch } from "@toolshed/errors";
import { defineTool, eachOnce } from "@toolshed/schema";
import { z } from "zod";
import { ticketUri } from "../resources/ticket.js";
import { checkResolution, TicketStatusSchema, textSchema } from "../schemas.js";
import type { TicketsStore } from "../store.js";
import { ticketIdSchema } from "../ticket-id.js";

const TOOL_NAME = "bulk_update_ticket_status";

/** Tickets updated at once: each is its own short transaction, so a few overlap well enough. */
const CONCURRENCY = 4;

export const BulkUpdateTicketStatusInput = z
  .object({
    ids: z
      .array(ticketIdSchema('Ticket id such as "T-1001"'))
      .min(1)
      .max(100)
      .superRefine(eachOnce("id"))
      .describe("Ids of the tickets to change, 1-100, each once"),
    status: TicketStatusSchema.describe(
      '"closed" to close every listed ticket (needs a resolution), "open" to reopen them',
    ),
    resolution: textSchema(
      2_000,
      'How the tickets were resolved, the same for each; required when status is "closed", omitted when "open"',
    ).optional(),
  })
  .superRefine(checkResolution);

export const BulkUpdateTicketStatusOutput = z.object({
  succeeded_count: z.number().int(),
  failed_count: z.number().int(),
  succeeded: z.array(
    z.object({
      id: z.string(),
      title: z.string(),
      previous_status: TicketStatusSchema,
      status: TicketStatusSchema,
      changed: z.boolean().describe("False when the ticket already had this status and resolution"),
    }),
  ),
  failed: z.array(
    z.object({
      id: z.string(),
      reason: z.string().describe("not_found, timeout, unavailable, …"),
      message: z.string(),
      retryable: z.boolean().describe("Whether the same update may succeed if tried again"),
    }),
  ),
});

export function bulkUpdateTicketStatusTool(store: TicketsStore) {
  return defineTool({
    name: TOOL_NAME,
    title: "Close or reopen several tickets",
    description:
      "Close up to 100 tickets with one resolution, or reopen them. Each ticket is updated on its own: the result lists which succeeded (with the previous status) and which failed, with a reason and whether retrying may help. A ticket that already has the status and resolution succeeds without a change.",
    input: BulkUpdateTicketStatusInput,
    output: BulkUpdateTicketStatusOutput,
    // As update_ticket_status: closing replaces an earlier resolution and reopening erases it.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    // Up to 100 updates: a client that allows tasks (2026-07-28) gets one and follows its progress.
    task: "optional",
    handler: ({ ids, status, resolution }, ctx) =>
      runBatch(
        ids,
        async (id) => {
          const change = await store.updateTicketStatus(
            id,
            resolution === undefined ? { status } : { status, resolution },
          );
          if (change.changed) ctx.resourceUpdated?.(ticketUri(change.ticket.id));
          return {
            id: change.ticket.id,
            title: change.ticket.title,
            previous_status: change.previous_status,
            status: change.ticket.status,
            changed: change.changed,
          };
        },
        {
          concurrency: CONCURRENCY,
          signal: ctx.signal,
          toolName: TOOL_NAME,
          logger: ctx.logger,
          progress: (done, total) => ctx.progress(done, total, `${done} of ${total} tickets`),
        },
      ),
  });
}
