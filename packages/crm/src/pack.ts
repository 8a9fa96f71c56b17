import { definePack, type Pack } from "@toolshed/schema";
import { storeCaller } from "./call-store.js";
import type { CrmDeps } from "./deps.js";
import { accountBriefPrompt } from "./prompts/account_brief.js";
import { accountResource } from "./resources/account.js";
import type { CrmStore } from "./store.js";
import { bulkUpdateTierTool } from "./tools/crm_bulk_update_tier.js";
import { createAccountTool } from "./tools/crm_create_account.js";
import { getAccountTool } from "./tools/crm_get_account.js";
import { searchAccountsTool } from "./tools/crm_search_accounts.js";

export interface CrmPackOptions {
  store: CrmStore;
  /** Close the store when the server that mounts the pack closes (default false: the caller owns it). */
  closeStore?: boolean;
  /** How long one store call may take before it is a retryable timeout (default 5000 ms). */
  timeoutMs?: number;
}

export const DEFAULT_STORE_TIMEOUT_MS = 5000;

/** The CRM tools, the `crm://accounts/{account_id}` resource and the `account_brief` prompt over one store. */
export function crmPack({ store, closeStore = false, timeoutMs = DEFAULT_STORE_TIMEOUT_MS }: CrmPackOptions): Pack {
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new RangeError(`crmPack: timeoutMs must be a positive number of milliseconds (got ${String(timeoutMs)})`);
  }
  const deps: CrmDeps = { store, call: storeCaller(timeoutMs) };
  return definePack({
    name: "crm",
    tools: [searchAccountsTool(deps), getAccountTool(deps), createAccountTool(deps), bulkUpdateTierTool(deps)],
    resources: [accountResource(deps)],
    prompts: [accountBriefPrompt(deps)],
    close: closeStore ? () => store.close() : undefined,
  });
}
