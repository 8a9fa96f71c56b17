import { defineTool } from "@toolshed/schema";
import { z } from "zod";
import { ticketUri } from "../resources/ticket.js";
import { checkResolution, TicketSchema, TicketStatusSchema, textSchema } from "../schemas.js";
import type { TicketsStore } from "../store.js";
import { ticketIdSchema } from "../ticket-id.js";

export const UpdateTicketStatusInput = z
  .object({
    id: ticketIdSchema('Ticket id such as "T-1001"'),
    status: TicketStatusSchema.describe('"closed" to close the ticket (needs a resolution), "open" to reopen it'),
    resolution: textSchema(
      2_000,
      'How the ticket was resolved; required when status is "closed", omitted when "open"',
    ).optional(),
  })
  .superRefine(checkResolution);

export const UpdateTicketStatusOutput = TicketSchema.omit({ body: true }).extend({
  previous_status: TicketStatusSchema,
  changed: z.boolean().describe("False when the ticket already had this status and resolution"),
});

export function updateTicketStatusTool(store: TicketsStore) {
  return defineTool({
    name: "update_ticket_status",
    title: "Update ticket status",
    description:
      "Close a ticket with a resolution, or reopen it (which clears the resolution). Setting the status it already has changes nothing.",
    input: UpdateTicketStatusInput,
    output: UpdateTicketStatusOutput,
    // Destructive: closing replaces an earlier resolution and reopening erases it.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    handler: async ({ id, status, resolution }, ctx) => {
      const change = await store.updateTicketStatus(id, resolution === undefined ? { status } : { status, resolution });
      if (change.changed) ctx.resourceUpdated?.(ticketUri(change.ticket.id));
      const { body: _body, ...ticket } = change.ticket;
      return { ...ticket, previous_status: change.previous_status, changed: change.changed };
    },
  });
}
