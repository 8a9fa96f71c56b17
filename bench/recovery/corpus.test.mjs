import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { openPacks } from "@toolshed/packs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCorpus, FORMS } from "./corpus.mjs";

describe("the recovery corpus", () => {
  let tmp;
  let tools;
  let corpus;
  beforeAll(async () => {
    tmp = mkdtempSync(join(os.tmpdir(), "recovery-corpus-"));
    const opened = await openPacks({ db: join(tmp, "tools.db") });
    tools = opened.packs.flatMap((p) => p.tools);
    await opened.close();
    corpus = buildCorpus(tools);
  });
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it("holds at least 300 wrong calls over every tool of the three packs, every form, unique ids", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(300);
    expect(new Set(corpus.map((e) => e.tool))).toEqual(new Set(tools.map((t) => t.name)));
    for (const form of FORMS)
      expect(corpus.filter((e) => e.form === form.id).length, form.id).toBeGreaterThanOrEqual(10);
    expect(new Set(corpus.map((e) => e.id)).size).toBe(corpus.length);
  });

  it("sends calls the tools refuse as sent, and expects what they accept", () => {
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const entry of corpus) {
      const tool = byName.get(entry.tool);
      expect(tool.input.safeParse(entry.expect).success, `${entry.id} expect`).toBe(true);
      if (entry.call.name !== entry.tool) continue;
      // Zod objects drop unknown keys, so an extra argument, or an optional one under another
      // name, parses: Toolshed refuses it, the peers drop it.
      const dropped =
        entry.form === "extra" || (entry.form === "name-case" && !tool.inputSchema.required?.includes(entry.field));
      if (dropped) expect(entry.call.arguments, entry.id).not.toEqual(entry.intent);
      else expect(tool.input.safeParse(entry.call.arguments).success, `${entry.id} sent`).toBe(false);
    }
  });

  it("is the same on every build", () => {
    expect(buildCorpus(tools)).toEqual(corpus);
  });
});
