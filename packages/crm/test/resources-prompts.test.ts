import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type CrmFixture, startCrm } from "./helpers.js";

let crm: CrmFixture;

beforeEach(async () => {
  crm = await startCrm({ timeoutMs: 100 });
});

afterEach(async () => {
  await crm.close();
});

async function failure(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

const TEMPLATE = { type: "ref/resource" as const, uri: "crm://accounts/{account_id}" };
const PROMPT = { type: "ref/prompt" as const, name: "account_brief" };

describe("resource crm://accounts/{account_id}", () => {
  it("is published as a template", async () => {
    expect((await crm.client.listResourceTemplates()).resourceTemplates).toEqual([
      {
        uriTemplate: "crm://accounts/{account_id}",
        name: "crm_account",
        title: "CRM account",
        description: "One CRM account as JSON: id, name, tier, ARR, domain, notes, archived flag and timestamps",
        mimeType: "application/json",
      },
    ]);
  });

  it("lists accounts by id", async () => {
    const { resources } = await crm.client.listResources();
    expect(resources).toHaveLength(36);
    expect(resources[0]).toEqual({
      uri: "crm://accounts/acc_1001",
      name: "Acme Corp",
      description: "enterprise account, ARR $1250000",
      mimeType: "application/json",
    });
    expect(resources[35]).toEqual({
      uri: "crm://accounts/acc_1036",
      name: "Kramerica",
      description: "startup account, ARR $2000, archived",
      mimeType: "application/json",
    });
  });

  it("the list is bounded at 100", async () => {
    for (let i = 0; i < 80; i++) await crm.store.createAccount({ name: `Filler ${i}`, tier: "startup", arr: i });
    const { resources } = await crm.client.listResources();
    expect(resources).toHaveLength(100);
  });

  it("reads one account as JSON", async () => {
    const account = await crm.store.getAccount("acc_1004");
    const result = await crm.client.readResource({ uri: "crm://accounts/acc_1004" });
    expect(result.contents).toEqual([
      { uri: "crm://accounts/acc_1004", mimeType: "application/json", text: JSON.stringify(account, null, 2) },
    ]);
  });

  it("a missing account is resource-not-found with the closest accounts", async () => {
    const error = await failure(crm.client.readResource({ uri: "crm://accounts/acc_1O04" }));
    expect(error.code).toBe(-32002);
    expect(error.message).toBe(
      "MCP error -32002: No account 'acc_1O04'. Closest accounts: acc_1004 (Umbrella Health), acc_1001 (Acme Corp), acc_1002 (Globex), acc_1003 (Initech), acc_1005 (Hooli); crm_search_accounts finds accounts by name",
    );
  });

  it("a hanging store is a timeout error, not a hang", async () => {
    crm.faulty.faults = { hang: true };
    const error = await failure(crm.client.readResource({ uri: "crm://accounts/acc_1001" }));
    expect(error.message).toBe("MCP error -32603: the CRM store did not answer within 100 ms");
    expect(error.data).toEqual({ "toolshed.dev/error": { kind: "tool", code: "timeout", retryable: true } });
  });

  it("completes ids by prefix and by account name", async () => {
    expect(await crm.client.complete({ ref: TEMPLATE, argument: { name: "account_id", value: "acc_101" } })).toEqual({
      completion: {
        values: Array.from({ length: 10 }, (_, i) => `acc_101${i}`),
        total: 10,
        hasMore: false,
      },
    });
    expect(await crm.client.complete({ ref: TEMPLATE, argument: { name: "account_id", value: "Glo" } })).toEqual({
      completion: { values: ["acc_1002"], total: 1, hasMore: false },
    });
  });
});

describe("prompt account_brief", () => {
  it("is listed with its argument", async () => {
    expect((await crm.client.listPrompts()).prompts).toEqual([
      {
        name: "account_brief",
        title: "Account brief",
        description: "Ask for a short brief on one CRM account, with the account's data included",
        arguments: [{ name: "account_id", description: "Id of the account, such as acc_1001", required: true }],
      },
    ]);
  });

  it("renders a request for a brief with the account's data", async () => {
    const account = await crm.store.getAccount("acc_1002");
    const result = await crm.client.getPrompt({ name: "account_brief", arguments: { account_id: "acc_1002" } });
    expect(result).toEqual({
      description: "Ask for a short brief on one CRM account, with the account's data included",
      messages: [
        {
          role: "user",
          content: {
            type: "text",
            text: [
              "Write a short brief on the CRM account Globex (acc_1002) for the account manager:",
              "who they are, their tier and ARR, anything in the notes that needs attention, and one next step.",
              "Use at most five bullet points.",
              "",
              "Account data:",
              JSON.stringify(account, null, 2),
            ].join("\n"),
          },
        },
      ],
    });
  });

  it("a missing account or argument is an error that says what works", async () => {
    const missing = await failure(crm.client.getPrompt({ name: "account_brief", arguments: { account_id: "Hooly" } }));
    expect(missing.message).toMatch(/^MCP error -32002: No account 'Hooly'\. Closest accounts: acc_1005 \(Hooli\), /);
    const noArgument = await failure(crm.client.getPrompt({ name: "account_brief", arguments: {} }));
    expect(noArgument.code).toBe(-32602);
    expect(noArgument.message).toBe(
      "MCP error -32602: Invalid arguments for prompt account_brief:\naccount_id: is required (a string)",
    );
  });

  it("completes the account id", async () => {
    expect(await crm.client.complete({ ref: PROMPT, argument: { name: "account_id", value: "acc_103" } })).toEqual({
      completion: {
        values: ["acc_1030", "acc_1031", "acc_1032", "acc_1033", "acc_1034", "acc_1035", "acc_1036"],
        total: 7,
        hasMore: false,
      },
    });
  });
});
