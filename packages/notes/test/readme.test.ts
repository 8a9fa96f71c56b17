import { readFileSync } from "node:fs";
import { expect, it } from "vitest";

// Needs the built package (npx tsup): the example imports @toolshed/notes by name.
it("the README's usage example is examples/usage.ts and answers as its comments say", async () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const example = readFileSync(new URL("../examples/usage.ts", import.meta.url), "utf8");
  expect(readme).toContain(`\`\`\`ts\n${example}\`\`\``);

  const { note, typo, hits } = await import("../examples/usage.js");
  expect(note.structuredContent).toEqual({ title: "groceries", body: "milk, eggs", words: 2 });
  expect(typo.isError).toBe(true);
  expect(typo.content).toEqual([
    { type: "text", text: "Error executing tool get_note: No note 'grocries'. Closest titles: groceries" },
  ]);
  const result = (hits.structuredContent as { result: Array<Record<string, string>> }).result;
  expect(result.map((h) => h.title)).toEqual(["groceries", "pancake recipe"]);
  expect(result[0]).toEqual({ title: "groceries", snippet: "**milk**, eggs", updated_at: expect.any(String) });
});
