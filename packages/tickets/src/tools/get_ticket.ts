import { defineTool } from "@toolshed/schema";
import { z } from "zod";
import { TicketCommentSchema, TicketSchema } from "../schemas.js";
import { MAX_COMMENTS_PAGE, type TicketsStore } from "../store.js";
import { ticketIdSchema } from "../ticket-id.js";

export const GetTicketInput = z.object({
  id: ticketIdSchema('Ticket id such as "T-1001"'),
  comments_limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_COMMENTS_PAGE)
    .default(50)
    .describe(`Most comments to return, the latest ones, 1-${MAX_COMMENTS_PAGE} (default 50)`),
  comments_cursor: z
    .string()
    .max(500)
    .optional()
    .describe("next_comments_cursor from an earlier get_ticket call for this ticket, to read older comments"),
});

export const GetTicketOutput = TicketSchema.extend({
  comment_count: z.number().int().describe("All comments of the ticket"),
  comments: z.array(TicketCommentSchema).describe("The latest comments, oldest first"),
  next_comments_cursor: z.string().nullable().describe("Pass as comments_cursor for older comments; null when none"),
});

export function getTicketTool(store: TicketsStore) {
  return defineTool({
    name: "get_ticket",
    title: "Get ticket",
    description:
      "Get one support ticket by id with its latest comments (oldest first) and the total comment count. Find ids with search_tickets.",
    input: GetTicketInput,
    output: GetTicketOutput,
    annotations: { readOnlyHint: true, openWorldHint: false },
    handler: ({ id, comments_limit, comments_cursor }) =>
      store.getTicket(
        id,
        comments_cursor === undefined
          ? { commentsLimit: comments_limit }
          : { commentsLimit: comments_limit, commentsCursor: comments_cursor },
      ),
  });
}
