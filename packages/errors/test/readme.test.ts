import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { getAccountResult } from "../examples/mcp-callback.js";

it("the README sample is examples/mcp-callback.ts and answers as it says", async () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const example = readFileSync(new URL("../examples/mcp-callback.ts", import.meta.url), "utf8");
  expect(readme).toContain(`\`\`\`ts\n${example}\`\`\``);

  const ok = await getAccountResult("acc_1", async () => ({ name: "Acme" }));
  expect(ok).toEqual({ content: [{ type: "text", text: "Acme" }] });
  const missing = await getAccountResult("acc_9", async () => undefined);
  expect(missing.content).toEqual([{ type: "text", text: "Error executing tool crm_get_account: No account 'acc_9'" }]);
  const reset = await getAccountResult("acc_1", async () => {
    throw Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
  });
  expect("_meta" in reset ? reset._meta["toolshed.dev/error"] : undefined).toMatchObject({
    code: "unavailable",
    retryable: true,
  });
  const errors: unknown[] = [];
  const spy = process.stderr.write;
  process.stderr.write = ((chunk: string) => errors.push(chunk) > 0) as typeof process.stderr.write;
  try {
    const masked = await getAccountResult("acc_1", async () => {
      throw new Error("password=hunter2");
    });
    expect(masked.content[0]?.text).toMatch(/^Error executing tool crm_get_account \(ref [0-9a-f]{8}\)$/);
  } finally {
    process.stderr.write = spy;
  }
  expect(String(errors[0])).toContain("password=hunter2");
});
