#!/usr/bin/env node
// A CRM server that writes until it is killed: idempotent creates and bulk tier updates, through
// the real tools on a database file. After each committed write it prints one acknowledgement
// line on stdout (JSON); the crash test kills it with SIGKILL at random moments and checks the file.
//
// Usage: node crash-writer.mjs DB FIRST_CREATE FIRST_ROUND ACCOUNT_ID...
import { openPacks } from "@toolshed/packs";
import { connectInMemory, createLogger, createServer } from "@toolshed/server";

const [db, firstCreate, firstRound, ...accountIds] = process.argv.slice(2);
const TIERS = ["startup", "growth", "enterprise"];

const opened = await openPacks({ db, packs: ["crm"] });
const server = createServer({
  name: "crash-writer",
  version: "1.0.0",
  packs: opened.packs,
  logger: createLogger({ level: "silent" }),
});
const client = await connectInMemory(server);

function say(line) {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

say({ ready: true });
// Bounded: the test kills it long before this ends.
for (let i = Number(firstCreate), round = Number(firstRound); i < Number(firstCreate) + 100_000; i++, round++) {
  const create = { name: `Crash Account ${i}`, tier: "startup", arr: i, idempotency_key: `crash-key-${i}` };
  say({ intent: "create", i });
  const created = await client.callTool({ name: "crm_create_account", arguments: create });
  if (created.isError) throw new Error(`create ${i} failed: ${JSON.stringify(created)}`);
  say({ ack: "create", i, id: created.structuredContent.id });

  const tier = TIERS[round % TIERS.length];
  say({ intent: "bulk", round, tier });
  const bulk = await client.callTool({
    name: "crm_bulk_update_tier",
    arguments: { account_ids: accountIds, new_tier: tier },
  });
  const content = bulk.structuredContent;
  say({
    ack: "bulk",
    round,
    tier,
    succeeded: content.succeeded.map((s) => s.id),
    failed: content.failed.map((f) => f.id),
  });
}
