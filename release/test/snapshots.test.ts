import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crmPack, SqliteCrmStore } from "@toolshed/crm";
import { notesPack, SqliteNotesStore } from "@toolshed/notes";
import type { Pack } from "@toolshed/schema";
import { breakingChangesetsFor, majorChangesetsFor, parseChangesetBumps as parseFrontMatter } from "@toolshed/testing";
import { SqliteTicketsStore, ticketsPack } from "@toolshed/tickets";
import { describe, expect, it } from "vitest";
import { ROOT } from "../scripts/lib/workspace.mjs";
import {
  type ContractSnapshot,
  compareContracts,
  describeDifference,
  liveContract,
  UPDATE_COMMAND,
} from "../src/contract.js";
import { comparisonBase, git } from "../src/git.js";

const UPDATE = process.env.TOOLSHED_UPDATE_SNAPSHOTS === "1";
const CHANGESETS = join(ROOT, ".changeset");

/** The changesets that allow a breaking change to a pack: major, or minor while its package is 0.x. */
function breakingChangesets(name: string, folder: string): string[] {
  const { version } = JSON.parse(readFileSync(join(ROOT, "packages", folder, "package.json"), "utf8")) as {
    version?: string;
  };
  return breakingChangesetsFor(CHANGESETS, name, version);
}

// Each pack over an empty in-memory SQLite store: the contract does not depend on the data.
const PACKS: Array<{ name: string; folder: string; open: () => Pack }> = [
  {
    name: "@toolshed/notes",
    folder: "notes",
    open: () => notesPack({ store: SqliteNotesStore.open(":memory:"), closeStore: true }),
  },
  {
    name: "@toolshed/tickets",
    folder: "tickets",
    open: () => ticketsPack({ store: SqliteTicketsStore.open(":memory:"), closeStore: true }),
  },
  {
    name: "@toolshed/crm",
    folder: "crm",
    open: () => crmPack({ store: SqliteCrmStore.open(":memory:"), closeStore: true }),
  },
];

describe("contract snapshots", () => {
  for (const { name, folder, open } of PACKS) {
    it(`${name} publishes what packages/${folder}/contract.snapshot.json says`, async () => {
      const relativePath = `packages/${folder}/contract.snapshot.json`;
      const file = join(ROOT, relativePath);
      const live = await liveContract(open());
      expect(live.tools.length).toBeGreaterThan(0);
      const committed = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as ContractSnapshot) : undefined;
      const comparison = committed ? compareContracts(committed, live) : undefined;

      if (UPDATE) {
        if (comparison?.breaking && breakingChangesets(name, folder).length === 0) {
          throw new Error(
            `${describeDifference(name, relativePath, comparison.changes)}\n` +
              `Not updated: add a .changeset/*.md that names "${name}": major (minor while 0.x) first.`,
          );
        }
        if (!comparison?.same) writeFileSync(file, `${JSON.stringify(live, null, 2)}\n`);
        return;
      }
      if (!committed || !comparison) {
        throw new Error(`${name}: no ${relativePath} yet. Create it with: ${UPDATE_COMMAND}`);
      }
      if (!comparison.same) throw new Error(describeDifference(name, relativePath, comparison.changes));
    });
  }
});

describe("committed snapshot changes", () => {
  // Catches a snapshot updated by hand (or with the check bypassed): what the commits under test
  // changed in a committed snapshot must carry a major changeset when it is breaking.
  const { base, reason } = comparisonBase(ROOT);
  for (const { name, folder } of PACKS) {
    const path = `packages/${folder}/contract.snapshot.json`;
    it(`a breaking change to ${path} since the comparison base comes with a major changeset (minor while 0.x)`, () => {
      const before = base ? git(ROOT, ["show", `${base}:${path}`]) : undefined;
      const after = git(ROOT, ["show", `HEAD:${path}`]);
      if (!before || !after) {
        process.stderr.write(`${path}: nothing to compare (${base ? "new since" : reason} ${base ?? ""})\n`);
        return;
      }
      const comparison = compareContracts(
        JSON.parse(before) as ContractSnapshot,
        JSON.parse(after) as ContractSnapshot,
      );
      if (comparison.breaking && breakingChangesets(name, folder).length === 0) {
        throw new Error(
          `${describeDifference(name, path, comparison.changes)}\n` +
            `The committed snapshot changed in a breaking way since ${base}, but no .changeset/*.md names "${name}": major (minor while 0.x).`,
        );
      }
    });
  }
});

describe("the snapshot check itself", () => {
  const base: ContractSnapshot = {
    tools: [
      {
        name: "search",
        description: "Search.",
        inputSchema: {
          type: "object",
          properties: { limit: { type: "integer", maximum: 50, description: "Most results" } },
        },
      },
      { name: "old", description: "Old.", inputSchema: { type: "object", properties: {} } },
    ],
    resources: [],
    resourceTemplates: [],
    prompts: [],
  };

  it("classifies a removed tool and a narrowed bound as breaking, a new tool as additive, and says what to do", () => {
    const live: ContractSnapshot = {
      ...base,
      tools: [
        {
          name: "search",
          description: "Search.",
          inputSchema: {
            type: "object",
            properties: { limit: { type: "integer", maximum: 20, description: "Most results" } },
          },
        },
        { name: "brand_new", description: "New.", inputSchema: { type: "object", properties: {} } },
      ],
    };
    const comparison = compareContracts(base, live);
    expect(comparison.same).toBe(false);
    expect(comparison.breaking).toBe(true);
    const text = describeDifference("@toolshed/x", "packages/x/contract.snapshot.json", comparison.changes);
    expect(text).toContain("breaking: tool old: tool removed");
    expect(text).toContain("breaking: tool search input.limit: maximum lowered to 20");
    expect(text).toContain("additive: tool brand_new: tool added");
    expect(text).toContain(UPDATE_COMMAND);
    expect(text).toContain("needs a major changeset for @toolshed/x (a minor while it is 0.x");
  });

  it("counts a description-only change as a difference, but not a breaking one", () => {
    const live: ContractSnapshot = {
      ...base,
      tools: base.tools.map((t) => (t.name === "old" ? { ...t, title: "Old tool" } : t)),
    };
    const comparison = compareContracts(base, live);
    expect(comparison.same).toBe(false);
    expect(comparison.breaking).toBe(false);
    expect(comparison.changes.length).toBeGreaterThan(0);
    expect(compareContracts(base, structuredClone(base)).same).toBe(true);
  });

  it("finds the changeset that names a package with major, and only that one", () => {
    const dir = mkdtempSync(join(tmpdir(), "toolshed-changesets-"));
    try {
      writeFileSync(join(dir, "README.md"), "# Changesets\n");
      writeFileSync(
        join(dir, "big.md"),
        '---\n"@toolshed/tickets": major\n"@toolshed/notes": minor\n---\n\nRenamed a tool.\n',
      );
      writeFileSync(join(dir, "small.md"), "---\n'@toolshed/crm': patch\n---\n\nA fix.\n");
      expect(majorChangesetsFor(dir, "@toolshed/tickets")).toEqual(["big.md"]);
      expect(majorChangesetsFor(dir, "@toolshed/notes")).toEqual([]);
      expect(majorChangesetsFor(dir, "@toolshed/crm")).toEqual([]);
      expect(parseFrontMatter("no front matter").size).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
