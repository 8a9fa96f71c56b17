import { defineTool } from "@toolshed/schema";
import { z } from "zod";
import { ticketUri } from "../resources/ticket.js";
import { idempotencyKeySchema, TicketCommentSchema, textSchema } from "../schemas.js";
import type { TicketsStore } from "../store.js";
import { ticketIdSchema } from "../ticket-id.js";

export const AddTicketCommentInput = z.object({
  id: ticketIdSchema('Id of the ticket to comment on, such as "T-1001"'),
  body: textSchema(10_000, "Text of the comment, 1-10000 characters"),
  idempotency_key: idempotencyKeySchema("adds no second comment"),
});

export const AddTicketCommentOutput = z.object({
  ticket_id: z.string(),
  comment: TicketCommentSchema,
  comment_count: z.number().int().describe("Comments on the ticket, this one included"),
});

export function addTicketCommentTool(store: TicketsStore) {
  return defineTool({
    name: "add_ticket_comment",
    title: "Add ticket comment",
    description:
      "Add a comment to a ticket (open or closed). Returns the comment and the ticket's comment count. Pass an idempotency_key to make retries safe.",
    input: AddTicketCommentInput,
    output: AddTicketCommentOutput,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    handler: async ({ id, body, idempotency_key }, ctx) => {
      const added = await store.addComment(
        id,
        body,
        idempotency_key === undefined ? {} : { idempotencyKey: idempotency_key },
      );
      ctx.resourceUpdated?.(ticketUri(added.ticket_id));
      return added;
    },
  });
}
