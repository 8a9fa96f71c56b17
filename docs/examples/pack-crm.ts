import { crmPack, SqliteCrmStore, seedDemo, withFaults } from "@toolshed/crm";
import { connectInMemory, createLogger, createServer } from "@toolshed/server";

const store = SqliteCrmStore.open(":memory:");
await seedDemo(store);
// withFaults makes the store hang on one account: the pack's deadline turns that into a timeout.
const slow = withFaults(store, { hang: ({ method, args }) => method === "getAccount" && args[0] === "acc_1001" });
const server = createServer({
  name: "crm",
  version: "1.0.0",
  packs: [crmPack({ store: slow, closeStore: true, timeoutMs: 200 })],
  logger: createLogger({ level: "silent" }),
});
const client = await connectInMemory(server);

// isError, retryable "timeout", text ends: "the CRM store did not answer within 200 ms; temporary failure, safe to retry"
export const timedOut = await client.callTool({ name: "crm_get_account", arguments: { account_id: "acc_1001" } });

// all items failed: isError: true, with the same {succeeded_count: 0, failed_count: 1, …} structured content
export const allFailed = await client.callTool({
  name: "crm_bulk_update_tier",
  arguments: { account_ids: ["acc_9999"], new_tier: "growth" },
});

// The resource template crm://accounts/{account_id}: the account as JSON.
export const resource = await client.readResource({ uri: "crm://accounts/acc_1005" });

// The prompt account_brief: asks for a short brief with the account's data included.
export const prompt = await client.getPrompt({ name: "account_brief", arguments: { account_id: "acc_1005" } });

await client.close();
await server.close(); // closes the store too (closeStore: true)
