import { NotFoundError } from "@toolshed/errors";
import { definePack, defineTool } from "@toolshed/schema";
import { connectInMemory, createServer } from "@toolshed/server";
import { z } from "zod";

const accounts = [
  { id: "acc_1", name: "Acme", arr: 12_000 },
  { id: "acc_2", name: "Globex", arr: 250_000 },
];

const searchAccounts = defineTool({
  name: "crm_search_accounts",
  description: "Search CRM accounts by name, optionally within an ARR range.",
  input: z
    .object({
      query: z.string().min(2).max(200).describe("Name or keyword"),
      min_arr: z.number().min(0).default(0).describe("Lowest ARR in dollars"),
      max_arr: z.number().min(0).optional().describe("Highest ARR in dollars"),
    })
    .refine((a) => a.max_arr === undefined || a.max_arr >= a.min_arr, {
      message: "must be greater than or equal to min_arr",
      path: ["max_arr"],
    }),
  output: z.object({ count: z.number(), accounts: z.array(z.object({ id: z.string(), name: z.string() })) }),
  annotations: { readOnlyHint: true },
  handler: ({ query, min_arr, max_arr }) => {
    const found = accounts
      .filter((a) => a.name.toLowerCase().includes(query.toLowerCase()))
      .filter((a) => a.arr >= min_arr && (max_arr === undefined || a.arr <= max_arr))
      .map(({ id, name }) => ({ id, name }));
    return { count: found.length, accounts: found };
  },
});

const getAccount = defineTool({
  name: "crm_get_account",
  description: "Fetch one CRM account by id.",
  input: z.object({ account_id: z.string().describe("Account id such as acc_1") }),
  output: z.object({ id: z.string(), name: z.string(), arr: z.number() }),
  annotations: { readOnlyHint: true },
  handler: ({ account_id }) => {
    const account = accounts.find((a) => a.id === account_id);
    if (!account) {
      throw new NotFoundError(`No account '${account_id}'. Known ids: ${accounts.map((a) => a.id).join(", ")}`);
    }
    return account;
  },
});

const server = createServer({
  name: "crm",
  version: "1.0.0",
  packs: [definePack({ name: "crm", tools: [searchAccounts, getAccount] })],
});

// A real SDK Client, connected in memory; over stdio or HTTP the results are the same.
const client = await connectInMemory(server);

const found = await client.callTool({ name: "crm_search_accounts", arguments: { query: "acme" } });
// found.structuredContent: { count: 1, accounts: [{ id: "acc_1", name: "Acme" }] }

const badRange = await client.callTool({
  name: "crm_search_accounts",
  arguments: { query: "acme", min_arr: 100, max_arr: 5 },
});
// badRange.isError: true, text:
// "Invalid arguments for tool crm_search_accounts:\nmax_arr: must be greater than or equal to min_arr"

const missing = await client.callTool({ name: "crm_get_account", arguments: { account_id: "acc_9" } });
// missing.isError: true, text: "Error executing tool crm_get_account: No account 'acc_9'. Known ids: acc_1, acc_2"
// missing._meta["toolshed.dev/error"]: { kind: "tool", code: "not_found", retryable: false }

await client.close();
await server.close();

export { badRange, found, missing };
