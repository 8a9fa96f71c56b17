import { definePrompt } from "@toolshed/schema";
import { z } from "zod";
import type { CrmDeps } from "../deps.js";
import { accountNotFound } from "../not-found.js";
import { accountIdSchema } from "../schemas.js";
import type { Account } from "../store.js";

export function accountBriefText(account: Account): string {
  return [
    `Write a short brief on the CRM account ${account.name} (${account.id}) for the account manager:`,
    "who they are, their tier and ARR, anything in the notes that needs attention, and one next step.",
    "Use at most five bullet points.",
    "",
    "Account data:",
    JSON.stringify(account, null, 2),
  ].join("\n");
}

export function accountBriefPrompt({ store, call }: CrmDeps) {
  return definePrompt({
    name: "account_brief",
    title: "Account brief",
    description: "Ask for a short brief on one CRM account, with the account's data included",
    args: z.object({ account_id: accountIdSchema.describe("Id of the account, such as acc_1001") }),
    complete: {
      account_id: (value, ctx) => call(ctx.signal, (signal) => store.completeAccountIds(value, 100, { signal })),
    },
    render: async ({ account_id }, ctx) => {
      const account = await call(ctx.signal, (signal) => store.getAccount(account_id, { signal }));
      if (!account) throw await accountNotFound(store, call, account_id, ctx.signal);
      return accountBriefText(account);
    },
  });
}
