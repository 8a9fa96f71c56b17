import { readFileSync } from "node:fs";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { expect, it } from "vitest";
import { text } from "./helpers.js";

it("the README's usage example is examples/usage.ts, and it does what its comments say", async () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const example = readFileSync(new URL("../examples/usage.ts", import.meta.url), "utf8");
  expect(readme).toContain(`\`\`\`ts\n${example}\`\`\``);

  const { found, missing, created, retried, bulk } = (await import("../examples/usage.js")) as Record<
    string,
    CallToolResult
  >;
  const page = found?.structuredContent as {
    count: number;
    accounts: Array<{ id: string; name: string }>;
    next_cursor: string;
  };
  expect(page.count).toBe(2);
  expect(page.accounts.map((a) => `${a.name} (${a.id})`)).toEqual([
    "Stark Logistics (acc_1007)",
    "Los Pollos Logistics (acc_1023)",
  ]);
  expect(page.next_cursor).toEqual(expect.any(String));

  expect(missing?.isError).toBe(true);
  expect(text(missing as CallToolResult)).toMatch(
    /^Error executing tool crm_get_account: No account 'acc_1O05'\. Closest accounts: acc_1005 \(Hooli\), /,
  );

  expect(created?.isError).toBeFalsy();
  expect(created?.structuredContent).toMatchObject({ name: "Northwind Traders", tier: "startup", arr: 48_000 });
  expect(retried?.structuredContent).toEqual(created?.structuredContent);

  expect(bulk?.isError).toBe(false);
  expect(bulk?.structuredContent).toMatchObject({
    succeeded_count: 1,
    failed_count: 1,
    succeeded: [{ id: "acc_1006" }],
    failed: [{ id: "acc_1034", reason: "archived", retryable: false }],
  });
});
