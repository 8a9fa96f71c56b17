import { describe, expect, it } from "vitest";
import { withFaults } from "./faulty-store.js";
import { SqliteCrmStore } from "./sqlite/store.js";

function store() {
  return SqliteCrmStore.open(":memory:");
}

describe("FaultyCrmStore", () => {
  it("without faults it answers as the store does, and records each call", async () => {
    const inner = store();
    const faulty = withFaults(inner);
    const created = await faulty.createAccount({ name: "Acme", tier: "startup", arr: 1 });
    expect(await faulty.getAccount(created.id)).toEqual(created);
    expect(faulty.calls.map((c) => c.method)).toEqual(["createAccount", "getAccount"]);
    expect(faulty.calls[1]?.args).toEqual([created.id]);
    await faulty.close();
  });

  it("delays by latencyMs", async () => {
    const faulty = withFaults(store(), { latencyMs: 30 });
    const started = performance.now();
    await faulty.getAccount("x");
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
    await faulty.close();
  });

  it("a hang ends only when the call's signal is aborted, with its reason", async () => {
    const faulty = withFaults(store(), { hang: true });
    const controller = new AbortController();
    const pending = faulty.getAccount("x", { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 20));
    const reason = new Error("deadline");
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(faulty.abortedCalls).toBe(1);
    await faulty.close();
  });

  it("unavailable fails like a reset connection; throwError throws what it is given; rules can pick calls", async () => {
    const secret = new Error("secret");
    const faulty = withFaults(store(), {
      unavailable: (call) => call.method === "searchAccounts",
      throwError: (call) => (call.method === "updateTier" ? secret : undefined),
    });
    await expect(faulty.searchAccounts({ text: "a", minArr: 0, limit: 1 })).rejects.toMatchObject({
      code: "ECONNRESET",
      message: "read ECONNRESET (crm store, searchAccounts)",
    });
    await expect(faulty.updateTier("x", "growth")).rejects.toBe(secret);
    expect(await faulty.getAccount("x")).toBeUndefined();
    await faulty.close();
  });

  it("a fault never reaches the wrapped store", async () => {
    const inner = store();
    const faulty = withFaults(inner, { unavailable: true });
    await expect(faulty.createAccount({ name: "Nope", tier: "startup", arr: 1 })).rejects.toMatchObject({
      code: "ECONNRESET",
    });
    expect((await inner.listAccounts({ limit: 10 })).accounts).toEqual([]);
    await faulty.close();
  });
});
