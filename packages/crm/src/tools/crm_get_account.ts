import { defineTool } from "@toolshed/schema";
import { z } from "zod";
import type { CrmDeps } from "../deps.js";
import { accountNotFound } from "../not-found.js";
import { accountIdSchema, accountSchema } from "../schemas.js";

export const getAccountInput = z.object({
  account_id: accountIdSchema.describe("Account id such as acc_1001; crm_search_accounts finds ids by name"),
});

export function getAccountTool({ store, call }: CrmDeps) {
  return defineTool({
    name: "crm_get_account",
    title: "Get a CRM account",
    description:
      "Fetch one CRM account by id: name, tier, ARR, domain, notes and whether it is archived. A wrong id answers with the closest existing accounts.",
    input: getAccountInput,
    output: accountSchema,
    annotations: { readOnlyHint: true, openWorldHint: false },
    handler: async ({ account_id }, ctx) => {
      const account = await call(ctx.signal, (signal) => store.getAccount(account_id, { signal }));
      if (!account) throw await accountNotFound(store, call, account_id, ctx.signal);
      return account;
    },
  });
}
