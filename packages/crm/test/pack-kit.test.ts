// The CRM pack through the pack authors' kit (@toolshed/testing): fuzzed from its published
// schemas, its contract held to contract.snapshot.json, and a few calls asserted.
import { fileURLToPath } from "node:url";
import { type TempDir, tempDir } from "@toolshed/test-support";
import {
  checkPackContract,
  connectPack,
  expectInvalidArguments,
  expectToolError,
  expectToolResult,
  fuzzPack,
} from "@toolshed/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { crmPack, DEMO_ACCOUNTS, SqliteCrmStore, seedDemo } from "../src/index.js";

const SNAPSHOT = fileURLToPath(new URL("../contract.snapshot.json", import.meta.url));

let dir: TempDir;
let store: SqliteCrmStore;

beforeEach(async () => {
  dir = tempDir("toolshed-crm-kit-");
  store = SqliteCrmStore.open(dir.file("crm.db"));
  await seedDemo(store);
});

afterEach(async () => {
  await store.close();
  dir.remove();
});

describe("the CRM pack through @toolshed/testing", () => {
  it("answers generated and hostile arguments with results or hint errors, in both eras", async () => {
    const report = await fuzzPack(crmPack({ store }), {
      seed: 20_250_301,
      runs: 120,
      allowWrites: true,
      knownValues: DEMO_ACCOUNTS.slice(0, 6).flatMap((a) => [a.id, a.name]),
    });
    expect(report.tools).toHaveLength(4);
    expect(report.failures).toEqual([]);
  }, 120_000);

  it("publishes what contract.snapshot.json says", async () => {
    expect(await checkPackContract(crmPack({ store }), SNAPSHOT)).toEqual([]);
  });

  it("gets an account, refuses an unknown id with a hint, and checks min_arr against max_arr", async () => {
    await using conn = await connectPack(crmPack({ store }), { era: "2026-07-28" });
    const first = DEMO_ACCOUNTS[0] as { id: string; name: string };
    const account = expectToolResult<{ id: string; name: string }>(
      await conn.call("crm_get_account", { account_id: first.id }),
    );
    expect(account).toMatchObject({ id: first.id, name: first.name });
    expectToolError(await conn.call("crm_get_account", { account_id: "acc_nope" }), {
      code: "not_found",
      retryable: false,
    });
    const issue = expectInvalidArguments(
      await conn.call("crm_search_accounts", { query: "a", min_arr: 500, max_arr: 100 }),
      "max_arr",
    );
    expect(issue.message).toMatch(/min_arr/);
  });
});
