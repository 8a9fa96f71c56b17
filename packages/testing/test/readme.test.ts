import { readFileSync } from "node:fs";
import { expect, it } from "vitest";

// The README's example is examples/math-pack.ts; importing it here runs its tests with this file.
import "../examples/math-pack.js";

it("the README shows examples/math-pack.ts as it is", () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const example = readFileSync(new URL("../examples/math-pack.ts", import.meta.url), "utf8");
  const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
  expect(blocks).toContain(example);
});
