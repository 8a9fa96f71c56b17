import { defineResourceTemplate } from "@toolshed/schema";
import { z } from "zod";
import { ticketMarkdown } from "../render-markdown.js";
import type { TicketsStore } from "../store.js";
import { ticketIdSchema } from "../ticket-id.js";

/** How many tickets resources/list shows: the most recently updated. */
export const LISTED_TICKETS = 50;
const COMPLETIONS = 20;
const COMMENTS_SHOWN = 100;

/** The URI of a ticket's resource. */
export function ticketUri(id: string): string {
  return `ticket://${id}`;
}

export function ticketResource(store: TicketsStore) {
  return defineResourceTemplate({
    uriTemplate: "ticket://{id}",
    name: "ticket",
    title: "Support ticket",
    description: "A support ticket and its latest comments as markdown, addressed by id such as ticket://T-1001",
    mimeType: "text/markdown",
    params: z.object({ id: ticketIdSchema('Ticket id such as "T-1001"') }),
    complete: { id: (value) => store.completeTicketIds(value, COMPLETIONS) },
    list: async () => {
      const { tickets } = await store.listTickets({ status: "any", limit: LISTED_TICKETS });
      return tickets.map((t) => ({
        uri: ticketUri(t.id),
        name: t.id,
        title: `${t.id}: ${t.title}`,
        description: `${t.status}, ${t.priority} priority, updated ${t.updated_at}`,
      }));
    },
    read: async ({ id }) => ticketMarkdown(await store.getTicket(id, { commentsLimit: COMMENTS_SHOWN })),
  });
}
