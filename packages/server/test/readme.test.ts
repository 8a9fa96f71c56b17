import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const root = new URL("../../../", import.meta.url);

function codeBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
}

describe("README samples are the example files that this test runs", () => {
  it("the root README's quick start is examples/quickstart.ts and behaves as its comments say", async () => {
    const readme = readFileSync(new URL("README.md", root), "utf8");
    const example = readFileSync(new URL("../examples/quickstart.ts", import.meta.url), "utf8");
    expect(codeBlocks(readme)).toContain(example);
    const { found, badRange, missing } = await import("../examples/quickstart.js");
    expect(found.structuredContent).toEqual({ count: 1, accounts: [{ id: "acc_1", name: "Acme" }] });
    expect(badRange.isError).toBe(true);
    expect((badRange.content as Array<{ text: string }>)[0]?.text).toBe(
      "Invalid arguments for tool crm_search_accounts:\nmax_arr: must be greater than or equal to min_arr",
    );
    expect((missing.content as Array<{ text: string }>)[0]?.text).toBe(
      "Error executing tool crm_get_account: No account 'acc_9'. Known ids: acc_1, acc_2",
    );
    expect(missing._meta?.["toolshed.dev/error"]).toEqual({ kind: "tool", code: "not_found", retryable: false });
  });

  it("the server package README's attachPack sample is examples/attach-v2.ts and behaves as its comments say", async () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    const example = readFileSync(new URL("../examples/attach-v2.ts", import.meta.url), "utf8");
    expect(codeBlocks(readme)).toContain(example);
    const { deployed, invalid } = await import("../examples/attach-v2.js");
    expect(deployed.structuredContent).toEqual({ result: "deployed to prod" });
    expect(invalid.isError).toBe(true);
    expect((invalid.content as Array<{ text: string }>)[0]?.text).toBe(
      'Invalid arguments for tool deploy:\nenv: must be one of "staging", "prod" (got "dev")',
    );
  });

  it("the server package README shows the same quick start", () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    const example = readFileSync(new URL("../examples/quickstart.ts", import.meta.url), "utf8");
    expect(codeBlocks(readme)).toContain(example);
  });
});
