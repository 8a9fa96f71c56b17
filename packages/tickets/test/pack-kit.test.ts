// The tickets pack through the pack authors' kit (@toolshed/testing): fuzzed from its published
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
import { SqliteTicketsStore, seedDemo, ticketsPack } from "../src/index.js";

const SNAPSHOT = fileURLToPath(new URL("../contract.snapshot.json", import.meta.url));

let dir: TempDir;
let store: SqliteTicketsStore;

beforeEach(async () => {
  dir = tempDir("toolshed-tickets-kit-");
  store = SqliteTicketsStore.open(dir.file("tickets.db"));
  await seedDemo(store);
});

afterEach(async () => {
  await store.close();
  dir.remove();
});

describe("the tickets pack through @toolshed/testing", () => {
  it("answers generated and hostile arguments with results or hint errors, in both eras", async () => {
    const report = await fuzzPack(ticketsPack({ store }), {
      seed: 20_250_301,
      runs: 120,
      allowWrites: true,
      knownValues: ["T-1001", "T-1002", "T-1003", "login", "invoice"],
    });
    expect(report.tools).toHaveLength(6);
    expect(report.failures).toEqual([]);
  }, 120_000);

  it("publishes what contract.snapshot.json says", async () => {
    expect(await checkPackContract(ticketsPack({ store }), SNAPSHOT)).toEqual([]);
  });

  it("gets a ticket, refuses an unknown id with a hint, and hints at a bad status", async () => {
    await using conn = await connectPack(ticketsPack({ store }));
    const ticket = expectToolResult<{ id: string; title: string }>(await conn.call("get_ticket", { id: "T-1001" }));
    expect(ticket.id).toBe("T-1001");
    expect(ticket.title).toBe("Login fails after password reset");
    expectToolError(await conn.call("get_ticket", { id: "T-9999" }), { code: "not_found", retryable: false });
    const issue = expectInvalidArguments(
      await conn.call("update_ticket_status", { id: "T-1001", status: "pending" }),
      "status",
    );
    expect(issue.message).toMatch(/^must be one of /);
  });
});
