import { NotFoundError, runBatch, UnavailableError } from "@toolshed/errors";
import type { Logger } from "@toolshed/schema";
import { definePack, defineTool } from "@toolshed/schema";
import { connectInMemory, createServer } from "@toolshed/server";
import { z } from "zod";

const ACCOUNTS = new Map([
  ["acc_1", { tier: "startup", archived: false }],
  ["acc_2", { tier: "growth", archived: true }],
]);

const getAccount = defineTool({
  name: "crm_get_account",
  description: "Fetch one CRM account by id.",
  input: z.object({
    account_id: z.string().min(1).describe("Account id such as acc_1"),
    source: z.enum(["db", "upstream", "flaky"]).default("db").describe("Where to read from (for this demo)"),
  }),
  output: z.object({ id: z.string(), tier: z.string() }),
  handler: ({ account_id, source }) => {
    if (source === "upstream") {
      // Not a ToolError: a secret in an unexpected exception must never reach the client (C7).
      throw new Error(`connect to crm.internal failed, password=hunter2`);
    }
    if (source === "flaky") {
      // What a driver throws when the connection drops: classified as retryable (C10).
      throw Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
    }
    const account = ACCOUNTS.get(account_id);
    if (!account) throw new NotFoundError(`No account '${account_id}'. Known ids: ${[...ACCOUNTS.keys()].join(", ")}`);
    if (account.archived) throw new UnavailableError(`Account '${account_id}' is being restored`);
    return { id: account_id, tier: account.tier };
  },
});

const bulkUpdateTier = defineTool({
  name: "crm_bulk_update_tier",
  description: "Change the tier of several accounts; reports each account's outcome.",
  input: z.object({
    account_ids: z.array(z.string()).min(1).max(100).describe("Accounts to change"),
    new_tier: z.enum(["startup", "growth", "enterprise"]).describe("The tier to set"),
  }),
  annotations: { destructiveHint: true, idempotentHint: true },
  // runBatch gives {succeeded_count, failed_count, succeeded, failed}: a C11 result.
  handler: ({ account_ids, new_tier }) =>
    runBatch(account_ids, (id) => {
      const account = ACCOUNTS.get(id);
      if (!account) throw new NotFoundError(`No account '${id}'`);
      if (account.archived) return Promise.reject({ reason: "archived", message: "archived accounts keep their tier" });
      account.tier = new_tier;
      return id;
    }),
});

// The server log (stderr by default) gets what the client must not see.
export const serverLog: Array<Record<string, unknown>> = [];
const logger: Logger = {
  error: (obj, msg) => serverLog.push({ level: "error", msg, ...obj }),
  warn: (obj, msg) => serverLog.push({ level: "warn", msg, ...obj }),
  info: () => {},
  debug: () => {},
};

const server = createServer({
  name: "crm",
  version: "1.0.0",
  packs: [definePack({ name: "crm", tools: [getAccount, bulkUpdateTier] })],
  logger,
});
const client = await connectInMemory(server);
const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });

// C6: "Invalid arguments for tool crm_get_account:\nsource: must be one of "db", "upstream", "flaky" (got "cache")"
export const invalid = await call("crm_get_account", { account_id: "acc_1", source: "cache" });

// C8: "Error executing tool crm_get_account: No account 'acc_9'. Known ids: acc_1, acc_2"
// C9: _meta["toolshed.dev/error"]: { kind: "tool", code: "not_found", retryable: false }
export const notFound = await call("crm_get_account", { account_id: "acc_9" });

// C9: "Error executing tool crm_get_account: Account 'acc_2' is being restored; temporary failure, safe to retry"
export const retryable = await call("crm_get_account", { account_id: "acc_2" });

// C7: "Error executing tool crm_get_account (ref 7f3a9c21)"; the server log has the error under that ref
export const masked = await call("crm_get_account", { account_id: "acc_1", source: "upstream" });

// C10: "Error executing tool crm_get_account: a service this tool depends on could not be reached
//      (ref 1b2c3d4e); temporary failure, safe to retry", code "unavailable"
export const reset = await call("crm_get_account", { account_id: "acc_1", source: "flaky" });

// C11: isError: false; text starts "1 of 3 items succeeded, 2 failed."
//      failed: [{ id: "acc_2", reason: "archived", … }, { id: "acc_9", reason: "not_found", … }]
export const partial = await call("crm_bulk_update_tier", {
  account_ids: ["acc_1", "acc_2", "acc_9"],
  new_tier: "growth",
});

// C12: not a result: the request fails with McpError -32602
//      "Unknown tool: crm_delete_account. Closest tools: crm_get_account, crm_bulk_update_tier"
export const unknownTool = await call("crm_delete_account", {}).catch((error: unknown) => error);

await client.close();
await server.close();
