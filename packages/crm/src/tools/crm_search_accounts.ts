import { defineTool } from "@toolshed/schema";
import { z } from "zod";
import type { CrmDeps } from "../deps.js";
import { tierSchema } from "../schemas.js";

// A trillion dollars: more than any account's ARR, so that the bound is published.
const MAX_ARR = 1_000_000_000_000;

export const searchAccountsInput = z
  .object({
    query: z
      .string()
      .min(2)
      .max(200)
      .describe("Name or keyword to look for in account names, domains and notes, e.g. 'acme' or 'logistics'"),
    tier: tierSchema.optional().describe("Only accounts of this tier"),
    min_arr: z.number().min(0).max(MAX_ARR).default(0).describe("Lowest annual recurring revenue in US dollars"),
    max_arr: z
      .number()
      .min(0)
      .max(MAX_ARR)
      .optional()
      .describe("Highest annual recurring revenue in US dollars; at least min_arr"),
    limit: z.number().int().min(1).max(100).default(20).describe("Most accounts to return on this page"),
    cursor: z
      .string()
      .min(1)
      .max(500)
      .optional()
      .describe("next_cursor from the previous page of the same search; omit for the first page"),
  })
  .refine((args) => args.max_arr === undefined || args.max_arr >= args.min_arr, {
    message: "must be greater than or equal to min_arr",
    path: ["max_arr"],
  });

export const searchAccountsOutput = z.object({
  count: z.number().int().describe("Accounts on this page"),
  accounts: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      tier: tierSchema,
      arr: z.number(),
      domain: z.string().nullable(),
      archived: z.boolean(),
      snippet: z.string().describe("Where the query matched, matched words in [brackets]"),
    }),
  ),
  next_cursor: z.string().nullable().describe("Pass as cursor for the next page; null on the last page"),
});

export function searchAccountsTool({ store, call }: CrmDeps) {
  return defineTool({
    name: "crm_search_accounts",
    title: "Search CRM accounts",
    description:
      "Search CRM accounts by name, domain or words in their notes, best match first, optionally filtered by tier and ARR range. Returns account ids for crm_get_account and crm_bulk_update_tier; archived accounts are included and marked.",
    input: searchAccountsInput,
    output: searchAccountsOutput,
    annotations: { readOnlyHint: true, openWorldHint: false },
    handler: async ({ query, tier, min_arr, max_arr, limit, cursor }, ctx) => {
      const page = await call(ctx.signal, (signal) =>
        store.searchAccounts({ text: query, tier, minArr: min_arr, maxArr: max_arr, limit, cursor }, { signal }),
      );
      return {
        count: page.hits.length,
        accounts: page.hits.map(({ account, snippet }) => ({
          id: account.id,
          name: account.name,
          tier: account.tier,
          arr: account.arr,
          domain: account.domain,
          archived: account.archived,
          snippet,
        })),
        next_cursor: page.nextCursor,
      };
    },
  });
}
