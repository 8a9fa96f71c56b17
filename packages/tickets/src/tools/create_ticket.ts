import { defineTool } from "@toolshed/schema";
import { z } from "zod";
import { ticketUri } from "../resources/ticket.js";
import { idempotencyKeySchema, TicketPrioritySchema, TicketSchema, textSchema } from "../schemas.js";
import type { TicketsStore } from "../store.js";

export const CreateTicketInput = z.object({
  title: textSchema(200, "One-line summary of the problem, up to 200 characters"),
  body: textSchema(20_000, "What happened, what was expected and how to reproduce it, up to 20000 characters"),
  priority: TicketPrioritySchema.default("normal").describe(
    'How urgent: "low", "normal" (default), "high" or "urgent"',
  ),
  idempotency_key: idempotencyKeySchema("creates no second ticket"),
});

export const CreateTicketOutput = TicketSchema.extend({
  similar: z
    .array(z.object({ id: z.string(), title: z.string() }))
    .describe("Open tickets sharing words with this one, most relevant first: possible duplicates"),
});

export function createTicketTool(store: TicketsStore) {
  return defineTool({
    name: "create_ticket",
    title: "Create ticket",
    description:
      "Open a new support ticket. Search first (search_tickets) to avoid duplicates; the result lists similar open tickets. Pass an idempotency_key to make retries safe.",
    input: CreateTicketInput,
    output: CreateTicketOutput,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    handler: async ({ title, body, priority, idempotency_key }, ctx) => {
      const created = await store.createTicket(
        { title, body, priority },
        idempotency_key === undefined ? {} : { idempotencyKey: idempotency_key },
      );
      ctx.resourceUpdated?.(ticketUri(created.ticket.id));
      ctx.resourceListChanged?.();
      return { ...created.ticket, similar: created.similar };
    },
  });
}
