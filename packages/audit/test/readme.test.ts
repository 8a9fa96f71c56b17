import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { gate } from "../examples/audit-api.js";
import { AUDIT_DIR, example } from "./helpers.js";

it("the README sample is examples/audit-api.ts and gates the SDK example as it says", async () => {
  const readme = readFileSync(`${AUDIT_DIR}/README.md`, "utf8");
  const sample = readFileSync(`${AUDIT_DIR}/examples/audit-api.ts`, "utf8");
  expect(readme).toContain(`\`\`\`ts\n${sample}\`\`\``);
  expect(await gate(process.execPath, [example("sdk-server.mjs")])).toEqual({
    score: 75,
    failed: ["D5", "D6", "D7", "B5"],
    ok: false,
  });
});
