import { definePack, type Pack } from "@toolshed/schema";
import type { CrmBackend } from "./backend.js";
import { backendCaller } from "./call-backend.js";
import type { CrmDeps } from "./deps.js";
import { accountBriefPrompt } from "./prompts/account_brief.js";
import { accountResource } from "./resources/account.js";
import { bulkUpdateTierTool } from "./tools/crm_bulk_update_tier.js";
import { createAccountTool } from "./tools/crm_create_account.js";
import { getAccountTool } from "./tools/crm_get_account.js";
import { searchAccountsTool } from "./tools/crm_search_accounts.js";

export interface CrmPackOptions {
  backend: CrmBackend;
  /** How long one backend call may take before it is a retryable timeout (default 5000 ms). */
  timeoutMs?: number;
  /** Close the backend when the server closes (default true). */
  closeBackend?: boolean;
}

export const DEFAULT_BACKEND_TIMEOUT_MS = 5000;

/** The CRM tools, the `crm://accounts/{account_id}` resource and the `account_brief` prompt. */
export function crmPack(options: CrmPackOptions): Pack {
  const { backend, timeoutMs = DEFAULT_BACKEND_TIMEOUT_MS, closeBackend = true } = options;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new RangeError(`crmPack: timeoutMs must be a positive number of milliseconds (got ${String(timeoutMs)})`);
  }
  const deps: CrmDeps = { backend, call: backendCaller(timeoutMs) };
  return definePack({
    name: "crm",
    tools: [searchAccountsTool(deps), getAccountTool(deps), createAccountTool(deps), bulkUpdateTierTool(deps)],
    resources: [accountResource(deps)],
    prompts: [accountBriefPrompt(deps)],
    close: closeBackend ? () => backend.close() : undefined,
  });
}
