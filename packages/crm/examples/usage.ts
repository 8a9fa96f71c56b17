import { crmPack, SqliteCrmStore, seedDemo } from "@toolshed/crm";
import { connectInMemory, createServer } from "@toolshed/server";

// A file path such as "./crm.db" works the same way; ":memory:" keeps this example self-contained.
const store = SqliteCrmStore.open(":memory:");
await seedDemo(store); // 36 demo accounts, acc_1001 to acc_1036

const server = createServer({ name: "crm", version: "1.0.0", packs: [crmPack({ store, timeoutMs: 5000 })] });
const client = await connectInMemory(server);

const found = await client.callTool({
  name: "crm_search_accounts",
  arguments: { query: "logistics", tier: "growth", limit: 2 },
});
// found.structuredContent: { count: 2, accounts: [Stark Logistics (acc_1007), Los Pollos Logistics (acc_1023)],
//   next_cursor: "…" } — pass next_cursor back as cursor for the next page

const missing = await client.callTool({ name: "crm_get_account", arguments: { account_id: "acc_1O05" } });
// missing.isError: true, text: "Error executing tool crm_get_account: No account 'acc_1O05'.
//   Closest accounts: acc_1005 (Hooli), …"

const signup = { name: "Northwind Traders", tier: "startup", arr: 48_000, idempotency_key: "signup-4711" };
const created = await client.callTool({ name: "crm_create_account", arguments: signup });
const retried = await client.callTool({ name: "crm_create_account", arguments: signup });
// retried.structuredContent equals created.structuredContent: the retry created nothing

const bulk = await client.callTool({
  name: "crm_bulk_update_tier",
  arguments: { account_ids: ["acc_1006", "acc_1034"], new_tier: "growth" },
});
// bulk.isError: false (some succeeded); bulk.structuredContent: { succeeded_count: 1, failed_count: 1,
//   succeeded: [{ id: "acc_1006", … }], failed: [{ id: "acc_1034", reason: "archived", retryable: false, … }] }

await client.close();
await server.close();
await store.close(); // the caller owns the store (or pass closeStore: true to close it with the server)

export { bulk, created, found, missing, retried };
