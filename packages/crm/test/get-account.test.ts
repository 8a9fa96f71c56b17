import { afterEach, describe, expect, it } from "vitest";
import { type CrmFixture, errorMeta, startCrm, text } from "./helpers.js";

let crm: CrmFixture | undefined;

afterEach(async () => {
  await crm?.close();
  crm = undefined;
});

describe("crm_get_account", () => {
  it("returns the whole account (C1)", async () => {
    crm = await startCrm();
    const result = await crm.call("crm_get_account", { account_id: "acc_1001" });
    expect(result.isError).toBeFalsy();
    const account = await crm.store.getAccount("acc_1001");
    expect(account).toEqual({
      id: "acc_1001",
      name: "Acme Corp",
      tier: "enterprise",
      arr: 1_250_000,
      domain: "acme.com",
      notes: "Renewal due in Q3; asked for SSO across all regions.",
      archived: false,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(result.structuredContent).toEqual(account);
    expect(result.content).toEqual([{ type: "text", text: JSON.stringify(account, null, 2) }]);
  });

  it("an archived account is returned, marked", async () => {
    crm = await startCrm();
    const result = await crm.call("crm_get_account", { account_id: "acc_1035" });
    expect(result.structuredContent).toMatchObject({ id: "acc_1035", name: "Virtucon", archived: true });
  });

  it("a missing id is not_found, not retryable, and lists the closest accounts", async () => {
    crm = await startCrm();
    const result = await crm.call("crm_get_account", { account_id: "acc_1O05" });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      "Error executing tool crm_get_account: No account 'acc_1O05'. Closest accounts: acc_1005 (Hooli), acc_1001 (Acme Corp), acc_1002 (Globex), acc_1003 (Initech), acc_1004 (Umbrella Health); crm_search_accounts finds accounts by name",
    );
    expect(errorMeta(result)).toEqual({ kind: "tool", code: "not_found", retryable: false });
    expect(result.structuredContent).toBeUndefined();
  });

  it("a name given as the id suggests that account first", async () => {
    crm = await startCrm();
    const result = await crm.call("crm_get_account", { account_id: "Initech" });
    expect(text(result)).toMatch(
      /^Error executing tool crm_get_account: No account 'Initech'\. Closest accounts: acc_1003 \(Initech\), /,
    );
  });

  it("the closest accounts come from a bounded candidate lookup, not a scan", async () => {
    crm = await startCrm();
    await crm.call("crm_get_account", { account_id: "acc_9999" });
    const lookups = crm.faulty.calls.filter((c) => c.method === "findCandidates");
    expect(lookups).toEqual([{ method: "findCandidates", args: ["acc_9999", 200] }]);
  });

  it("an empty CRM says so", async () => {
    crm = await startCrm({ seed: false });
    const result = await crm.call("crm_get_account", { account_id: "acc_1" });
    expect(text(result)).toBe("Error executing tool crm_get_account: No account 'acc_1'; the CRM has no accounts yet");
  });

  it("C6: an empty or oversized id is an argument error", async () => {
    crm = await startCrm();
    expect(text(await crm.call("crm_get_account", { account_id: "" }))).toBe(
      "Invalid arguments for tool crm_get_account:\naccount_id: must not be empty",
    );
    expect(text(await crm.call("crm_get_account", { account_id: "x".repeat(101) }))).toBe(
      `Invalid arguments for tool crm_get_account:\naccount_id: must be at most 100 characters (got 101)`,
    );
    expect(text(await crm.call("crm_get_account", {}))).toBe(
      "Invalid arguments for tool crm_get_account:\naccount_id: is required (a string)",
    );
  });
});
