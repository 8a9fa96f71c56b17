import { decodeUriVariable, defineResourceTemplate } from "@toolshed/schema";
import { z } from "zod";
import type { CrmDeps } from "../deps.js";
import { accountNotFound } from "../not-found.js";
import { accountIdSchema } from "../schemas.js";

/** resources/list shows the first accounts by id; the rest are reachable by id and completion. */
export const LISTED_ACCOUNTS = 100;
const COMPLETIONS = 100;

/** The URI of an account's resource. */
export function accountUri(id: string): string {
  return `crm://accounts/${encodeURIComponent(id)}`;
}

export function accountResource({ store, call }: CrmDeps) {
  return defineResourceTemplate({
    uriTemplate: "crm://accounts/{account_id}",
    name: "crm_account",
    title: "CRM account",
    description: "One CRM account as JSON: id, name, tier, ARR, domain, notes, archived flag and timestamps",
    mimeType: "application/json",
    params: z.object({ account_id: accountIdSchema.describe("Account id such as acc_1001") }),
    complete: {
      account_id: (value, ctx) =>
        call(ctx.signal, (signal) => store.completeAccountIds(value, COMPLETIONS, { signal })),
    },
    list: async (ctx) => {
      const page = await call(ctx.signal, (signal) => store.listAccounts({ limit: LISTED_ACCOUNTS }, { signal }));
      return page.accounts.map((a) => ({
        uri: accountUri(a.id),
        name: a.name,
        description: `${a.tier} account, ARR $${a.arr}${a.archived ? ", archived" : ""}`,
      }));
    },
    read: async ({ account_id: raw }, ctx) => {
      // accountUri percent-encodes the id, so the URI's variable is decoded before the look-up.
      const account_id = decodeUriVariable(raw, "account_id", "account id");
      const account = await call(ctx.signal, (signal) => store.getAccount(account_id, { signal }));
      if (!account) throw await accountNotFound(store, call, account_id, ctx.signal);
      return JSON.stringify(account, null, 2);
    },
  });
}
