import type { BatchFailure } from "@toolshed/errors";
import { runBatch } from "@toolshed/errors";
import { defineTool, eachOnce } from "@toolshed/schema";
import { z } from "zod";
import type { CrmDeps } from "../deps.js";
import { accountNotFound } from "../not-found.js";
import { accountUri } from "../resources/account.js";
import { accountIdSchema, tierSchema } from "../schemas.js";
import type { Account } from "../store.js";

const TOOL_NAME = "crm_bulk_update_tier";

/** Accounts updated at once: enough to overlap a slow store's latency, few enough to be gentle. */
const CONCURRENCY = 4;

export const bulkUpdateTierInput = z.object({
  account_ids: z
    .array(accountIdSchema)
    .min(1)
    .max(100)
    .superRefine(eachOnce("id"))
    .describe("Ids of the accounts to change, 1-100, each once"),
  new_tier: tierSchema.describe("Tier to give every listed account"),
});

export const bulkUpdateTierOutput = z.object({
  succeeded_count: z.number().int(),
  failed_count: z.number().int(),
  succeeded: z.array(z.object({ id: z.string(), name: z.string(), previous_tier: tierSchema, tier: tierSchema })),
  failed: z.array(
    z.object({
      id: z.string(),
      reason: z.string().describe("not_found, archived, timeout, unavailable, …"),
      message: z.string(),
      retryable: z.boolean().describe("Whether the same update may succeed if tried again"),
    }),
  ),
});

/** An item failure with a domain reason; BatchCollector reports it as it is. */
function archived(account: Account): Omit<BatchFailure, "id"> {
  return {
    reason: "archived",
    message: `Account '${account.id}' (${account.name}) is archived; archived accounts keep their tier`,
    retryable: false,
  };
}

export function bulkUpdateTierTool({ store, call }: CrmDeps) {
  return defineTool({
    name: TOOL_NAME,
    title: "Change the tier of several CRM accounts",
    description:
      "Set the tier of up to 100 accounts. Each account is updated on its own: the result lists which succeeded (with the previous tier) and which failed, with a reason and whether retrying may help. Setting the tier an account already has succeeds without a change.",
    input: bulkUpdateTierInput,
    output: bulkUpdateTierOutput,
    // Overwrites each account's tier (the previous one is reported); repeating the call changes nothing more.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    // Up to 100 updates: a client that allows tasks (2026-07-28) gets one and follows its progress.
    task: "optional",
    handler: ({ account_ids, new_tier }, ctx) =>
      runBatch(
        account_ids,
        async (id) => {
          const update = await call(ctx.signal, (signal) => store.updateTier(id, new_tier, { signal }));
          if (update.status === "not_found") throw await accountNotFound(store, call, id, ctx.signal);
          if (update.status === "archived") throw archived(update.account);
          ctx.resourceUpdated?.(accountUri(id));
          return { id, name: update.account.name, previous_tier: update.previousTier, tier: update.account.tier };
        },
        {
          concurrency: CONCURRENCY,
          signal: ctx.signal,
          toolName: TOOL_NAME,
          logger: ctx.logger,
          progress: (done, total) => ctx.progress(done, total, `${done} of ${total} accounts`),
        },
      ),
  });
}
