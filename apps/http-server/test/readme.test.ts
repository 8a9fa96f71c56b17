import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { ensureBuilt } from "./helpers.js";

// Needs the built package: the example imports @toolshed/http-server by name.
it("the README's mounting example is examples/mount.ts and answers as its comments say", async () => {
  ensureBuilt();
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const example = readFileSync(new URL("../examples/mount.ts", import.meta.url), "utf8");
  expect(readme).toContain(`\`\`\`ts\n${example}\`\`\``);

  const { tools, note, denied } = await import("../examples/mount.js");
  expect([...tools].sort()).toEqual(["get_note", "list_notes", "search_notes"]);
  expect(note.structuredContent).toEqual({ title: "groceries", body: "milk, eggs", words: 2 });
  expect(denied.isError).toBe(true);
  expect((denied.content as Array<{ text: string }>)[0]?.text).toMatch(
    /^Error executing tool create_note: your credentials allow read-only tools only; /,
  );
});

// The deployment flags are documented in docs/deploy.md; their README rows are requested from
// the README's owner (issue 7). Drop a name from this list once its row is in the README.
it("the README documents every flag and its environment variable", async () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const { HTTP_FLAGS } = await import("../src/args.js");
  for (const [name, spec] of Object.entries(HTTP_FLAGS)) {
    expect(readme).toContain(`\`--${name}`);
    if ("env" in spec) expect(readme).toContain(`\`${spec.env}\``);
  }
  expect(readme).toContain("`TOOLSHED_TOKENS`");
});
