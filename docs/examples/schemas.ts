import { DefinitionError, definePack, defineTool } from "@toolshed/schema";
import { z } from "zod";

// The seed lesson's search_tickets: every Zod detail below shows up in the published schema.
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
  handler: ({ query, status, limit }) => [`#101 ${query} (${status})`].slice(0, limit),
});

// searchTickets.inputSchema (what tools/list publishes; no $schema, closed object):
// { type: "object",
//   properties: {
//     query: { type: "string", description: "Words to match in title or body" },
//     status: { type: "string", enum: ["open", "closed", "any"], default: "open", description: "Ticket status to match" },
//     limit: { type: "integer", minimum: 1, maximum: 50, default: 10, description: "Most tickets to return" } },
//   required: ["query"], additionalProperties: false }
export const published = searchTickets.inputSchema;

// Defaults are filled in: { success: true, data: { query: "login", status: "open", limit: 10 } }
export const filled = searchTickets.parseArguments({ query: "login" });

// One hint per problem: [{ path: "qeury", message: 'unknown argument; did you mean "query"? Valid arguments:
// query, status, limit' }, { path: "query", message: "is required (a string)" }]
export const typo = searchTickets.parseArguments({ qeury: "login" });

// null for an argument that may be left out counts as leaving it out, so the default applies:
// { success: true, data: { query: "login", status: "open", limit: 10 } }
export const nulls = searchTickets.parseArguments({ query: "login", status: null, limit: null });

// A required argument sent as null: [{ path: "query", message: "is required and must be a string (got null)" }]
export const requiredNull = searchTickets.parseArguments({ query: null });

// Cross-field rules: .refine on the object, with the path of the field to blame.
export const searchAccounts = defineTool({
  name: "crm_search_accounts",
  description: "Search CRM accounts by name, optionally within an ARR range.",
  input: z
    .object({
      query: z.string().min(2).max(200).describe("Name or keyword"),
      min_arr: z.number().min(0).default(0).describe("Lowest ARR in dollars"),
      max_arr: z.number().min(0).optional().describe("Highest ARR in dollars"),
    })
    .refine((a) => a.max_arr === undefined || a.max_arr >= a.min_arr, {
      message: "must be greater than or equal to min_arr",
      path: ["max_arr"],
    }),
  handler: ({ query }) => ({ query }),
});

// [{ path: "max_arr", message: "must be greater than or equal to min_arr" }]
export const range = searchAccounts.parseArguments({ query: "acme", min_arr: 100, max_arr: 5 });

// Rules that depend on a value: .superRefine, one issue per problem.
export const closeTicket = defineTool({
  name: "update_ticket_status",
  description: "Close or reopen a ticket.",
  input: z
    .object({
      id: z.string().describe("Ticket id such as T-1001"),
      status: z.enum(["open", "closed"]).describe("The new status"),
      resolution: z.string().min(1).optional().describe("How it was solved; required when closing"),
    })
    .superRefine((a, ctx) => {
      if (a.status === "closed" && a.resolution === undefined) {
        ctx.addIssue({ code: "custom", path: ["resolution"], message: 'is required when status is "closed"' });
      }
    }),
  handler: ({ id, status }) => ({ id, status }),
});

// [{ path: "resolution", message: 'is required when status is "closed"' }]
export const needsResolution = closeTicket.parseArguments({ id: "T-1001", status: "closed" });

// Definitions are checked when they are made (C13): the message names the tool and the rule.
// 'Tool "search tickets": …[C13]' (a space is not allowed in a name)
export const badName = catchDefinition(() =>
  defineTool({ name: "search tickets", description: "Search.", input: z.object({}), handler: () => [] }),
);

// A property without .describe() is refused: 'Tool "get_ticket": …[C13]'
export const undescribed = catchDefinition(() =>
  defineTool({
    name: "get_ticket",
    description: "Fetch a ticket.",
    input: z.object({ id: z.string() }),
    handler: () => ({}),
  }),
);

function catchDefinition(define: () => unknown): string {
  try {
    define();
    return "defined";
  } catch (error) {
    if (error instanceof DefinitionError) return error.message;
    throw error;
  }
}

export const tickets = definePack({ name: "tickets", tools: [searchTickets, closeTicket] });
