import { ToolError } from "@toolshed/errors";
import { definePack, defineTool } from "@toolshed/schema";
import { z } from "zod";

export const searchTickets = defineTool({
  name: "search_tickets",
  title: "Search tickets",
  description: "Search support tickets. Use before creating a ticket to avoid duplicates.",
  input: z.object({
    query: z.string().describe("Words to match in title or body"),
    status: z.enum(["open", "closed", "any"]).default("open").describe("Ticket status to match"),
    limit: z.number().int().min(1).max(50).default(10).describe("Most tickets to return"),
  }),
  output: z.array(z.string()),
  annotations: { readOnlyHint: true },
  handler: ({ query, status, limit }) => {
    if (query.trim() === "") throw new ToolError("query is empty; give a word from the ticket title");
    return [`#101 ${query} (${status})`].slice(0, limit);
  },
});

export const ticketsPack = definePack({ name: "tickets", tools: [searchTickets] });

// Arguments are checked before the handler runs:
const bad = searchTickets.parseArguments({ query: "login", status: "pending", limit: 999 });

// bad.success === false; bad.issues:
// [{ path: "status", message: 'must be one of "open", "closed", "any" (got "pending")' },
//  { path: "limit", message: "must be at most 50 (got 999)" }]
export { bad };
