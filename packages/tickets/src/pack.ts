import { definePack, type Pack } from "@toolshed/schema";
import { triageTicketPrompt } from "./prompts/triage_ticket.js";
import { ticketResource } from "./resources/ticket.js";
import type { TicketsStore } from "./store.js";
import { addTicketCommentTool } from "./tools/add_ticket_comment.js";
import { bulkUpdateTicketStatusTool } from "./tools/bulk_update_ticket_status.js";
import { createTicketTool } from "./tools/create_ticket.js";
import { getTicketTool } from "./tools/get_ticket.js";
import { searchTicketsTool } from "./tools/search_tickets.js";
import { updateTicketStatusTool } from "./tools/update_ticket_status.js";

export interface TicketsPackOptions {
  store: TicketsStore;
  /** Close the store when the server that mounts the pack closes (default false: the caller owns it). */
  closeStore?: boolean;
}

/** The tickets tools, the ticket:// resource and the triage_ticket prompt over one store. */
export function ticketsPack({ store, closeStore = false }: TicketsPackOptions): Pack {
  return definePack({
    name: "tickets",
    tools: [
      searchTicketsTool(store),
      getTicketTool(store),
      createTicketTool(store),
      updateTicketStatusTool(store),
      bulkUpdateTicketStatusTool(store),
      addTicketCommentTool(store),
    ],
    resources: [ticketResource(store)],
    prompts: [triageTicketPrompt(store)],
    close: closeStore ? () => store.close() : undefined,
  });
}
