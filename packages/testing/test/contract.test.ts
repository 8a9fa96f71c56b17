import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { definePack, defineTool, type Pack } from "@toolshed/schema";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { type ContractSnapshot, checkPackContract, packContract } from "../src/index.js";
import { booksPack, getBook, searchBooks } from "./fixture.js";

let root: string;
let snapshot: string;

beforeEach(() => {
  // A pack's folder inside a repository: package.json names it, .changeset is two levels up.
  root = mkdtempSync(join(tmpdir(), "toolshed-testing-contract-"));
  mkdirSync(join(root, ".changeset"));
  mkdirSync(join(root, "packages", "books"), { recursive: true });
  writeFileSync(join(root, "packages", "books", "package.json"), JSON.stringify({ name: "@acme/books" }));
  snapshot = join(root, "packages", "books", "contract.snapshot.json");
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

/** The books pack with get_book's id bounded tighter: a breaking change to its input. */
function narrowedPack(): Pack {
  const narrowed = defineTool({
    name: "get_book",
    description: getBook.description,
    input: z.object({ id: z.string().min(1).max(10).describe("Book id, e.g. dune") }),
    output: z.object({ title: z.string(), year: z.number().int() }),
    annotations: { readOnlyHint: true },
    handler: () => ({ title: "Dune", year: 1965 }),
  });
  return definePack({ name: "books", tools: [narrowed, searchBooks] });
}

/** The books pack plus a tool: an additive change. */
function widerPack(): Pack {
  const extra = defineTool({
    name: "count_books",
    description: "Count the books.",
    input: z.object({}),
    output: z.object({ count: z.number().int() }),
    annotations: { readOnlyHint: true },
    handler: () => ({ count: 2 }),
  });
  return definePack({ name: "books", tools: [getBook, searchBooks, extra] });
}

const basePack = () => definePack({ name: "books", tools: [getBook, searchBooks] });

describe("checkPackContract", () => {
  it("writes a missing snapshot with sorted keys, then passes while nothing changes", async () => {
    expect(await checkPackContract(basePack(), snapshot)).toEqual([]);
    const text = readFileSync(snapshot, "utf8");
    const written = JSON.parse(text) as ContractSnapshot;
    expect(written.tools.map((t) => t.name)).toEqual(["get_book", "search_books"]);
    expect(Object.keys(written)).toEqual(["prompts", "resourceTemplates", "resources", "tools"]);
    const tool = written.tools[0] as Record<string, unknown>;
    expect(Object.keys(tool)).toEqual(["annotations", "description", "inputSchema", "name", "outputSchema"]);
    expect(Object.keys(tool.inputSchema as object)).toEqual(["additionalProperties", "properties", "required", "type"]);
    expect(text.endsWith("}\n")).toBe(true);
    expect(await checkPackContract(basePack(), snapshot)).toEqual([]);
    expect(readFileSync(snapshot, "utf8")).toBe(text);
    expect(await packContract(basePack())).toEqual(written);
  });

  it("fails on an additive change until the snapshot is updated, and says what changed", async () => {
    await checkPackContract(basePack(), snapshot);
    await expect(checkPackContract(widerPack(), snapshot, { update: false })).rejects.toThrow(
      `The published contract differs from ${snapshot}:\n  additive: tool count_books: tool added\nThe snapshot is out of date, run with TOOLSHED_UPDATE_SNAPSHOTS=1 to update it.`,
    );
    expect(await checkPackContract(widerPack(), snapshot, { update: true })).toEqual([
      { kind: "additive", at: "tool count_books", message: "tool added" },
    ]);
    expect(await checkPackContract(widerPack(), snapshot, { update: false })).toEqual([]);
  });

  it("blocks a breaking change without a major changeset, even when updating", async () => {
    await checkPackContract(basePack(), snapshot);
    const before = readFileSync(snapshot, "utf8");
    writeFileSync(join(root, ".changeset", "minor.md"), '---\n"@acme/books": minor\n---\n\nA tweak.\n');
    const error = await checkPackContract(narrowedPack(), snapshot, { update: true }).catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      [
        `The published contract differs from ${snapshot}:`,
        "  breaking: tool get_book input.id: maxLength lowered to 10",
        `A breaking change needs a major version: add a changeset in ${join(root, ".changeset")} whose front matter names "@acme/books": major,`,
        "then update the snapshot with TOOLSHED_UPDATE_SNAPSHOTS=1. Or keep the contract compatible.",
      ].join("\n"),
    );
    expect(readFileSync(snapshot, "utf8")).toBe(before);
  });

  it("takes a minor changeset for a breaking change while the package is 0.x, which caret ranges do not cross", async () => {
    writeFileSync(
      join(root, "packages", "books", "package.json"),
      JSON.stringify({ name: "@acme/books", version: "0.4.2" }),
    );
    await checkPackContract(basePack(), snapshot);
    const refused = await checkPackContract(narrowedPack(), snapshot, { update: true }).catch((e: unknown) => e);
    expect((refused as Error).message.split("\n")[2]).toBe(
      `A breaking change needs a new version that caret ranges do not take: while @acme/books is 0.4.2, a minor; add a changeset in ${join(root, ".changeset")} whose front matter names "@acme/books": minor (or major),`,
    );
    writeFileSync(join(root, ".changeset", "tweak.md"), '---\n"@acme/books": minor\n---\n\nShorter ids.\n');
    await expect(checkPackContract(narrowedPack(), snapshot, { update: false })).rejects.toThrow(
      "Breaking-change changeset found (tweak.md); the snapshot is out of date",
    );
    expect(await checkPackContract(narrowedPack(), snapshot, { update: true })).toEqual([
      { kind: "breaking", at: "tool get_book input.id", message: "maxLength lowered to 10" },
    ]);
    // From 1.0 on, a minor is not enough.
    writeFileSync(
      join(root, "packages", "books", "package.json"),
      JSON.stringify({ name: "@acme/books", version: "1.0.0" }),
    );
    rmSync(snapshot);
    await checkPackContract(basePack(), snapshot);
    await expect(checkPackContract(narrowedPack(), snapshot, { update: true })).rejects.toThrow(
      "A breaking change needs a major version: add a changeset in",
    );
  });

  it("accepts a breaking change with a major changeset for the package, once the snapshot is updated", async () => {
    await checkPackContract(basePack(), snapshot);
    writeFileSync(join(root, ".changeset", "other.md"), '---\n"@acme/other": major\n---\n\nElsewhere.\n');
    await expect(checkPackContract(narrowedPack(), snapshot, { update: true })).rejects.toThrow(
      "needs a major version",
    );
    writeFileSync(join(root, ".changeset", "big.md"), "---\n'@acme/books': major\n---\n\nShorter ids.\n");
    await expect(checkPackContract(narrowedPack(), snapshot, { update: false })).rejects.toThrow(
      "Major changeset found (big.md); the snapshot is out of date, run with TOOLSHED_UPDATE_SNAPSHOTS=1 to update it.",
    );
    expect(await checkPackContract(narrowedPack(), snapshot, { update: true })).toEqual([
      { kind: "breaking", at: "tool get_book input.id", message: "maxLength lowered to 10" },
    ]);
    expect(await checkPackContract(narrowedPack(), snapshot)).toEqual([]);
  });

  it("takes the package name and changeset folder from options", async () => {
    const elsewhere = join(root, "elsewhere");
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, "x.md"), '---\n"books-pack": major\n---\n\nRenamed.\n');
    await checkPackContract(basePack(), snapshot);
    const changes = await checkPackContract(narrowedPack(), snapshot, {
      update: true,
      packageName: "books-pack",
      changesetDir: elsewhere,
    });
    expect(changes.map((c) => c.kind)).toEqual(["breaking"]);
  });

  it("reads the update switch from TOOLSHED_UPDATE_SNAPSHOTS", async () => {
    await checkPackContract(basePack(), snapshot);
    const saved = process.env.TOOLSHED_UPDATE_SNAPSHOTS;
    process.env.TOOLSHED_UPDATE_SNAPSHOTS = "1";
    try {
      expect(await checkPackContract(booksPack(), snapshot)).toEqual([
        { kind: "additive", at: "tool add_book", message: "tool added" },
        { kind: "additive", at: "tool flaky", message: "tool added" },
      ]);
    } finally {
      if (saved === undefined) delete process.env.TOOLSHED_UPDATE_SNAPSHOTS;
      else process.env.TOOLSHED_UPDATE_SNAPSHOTS = saved;
    }
  });
});
