import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import {
  type CodeBlock,
  codeBlocks,
  DOC_EXAMPLES,
  docPages,
  exampleFiles,
  FRAGMENT_MARK,
  ROOT,
  readmeFolders,
} from "./markdown.js";
import { typeCheck } from "./typecheck.js";

// docs/examples files that the examples test runs; the others are only compiled, for the reason given.
export const RUNNABLE = [
  "getting-started.ts",
  "errors.ts",
  "schemas.ts",
  "schemas-json.ts",
  "structured-output.ts",
  "read-only.ts",
  "pack-notes.ts",
  "pack-tickets.ts",
  "pack-crm.ts",
  "http-server.ts",
  "resources-prompts.ts",
];
const COMPILE_ONLY: Record<string, string> = {
  "stdio-main.ts": "it serves on this process's stdin/stdout until they close; stdio-main.test.ts runs it as a process",
  "module-modes.ts":
    "release/test/module-modes.test.ts runs it from the packed packages, in a CommonJS and an ES module project",
};

// README ts blocks that are not example files, and the package test that checks each one.
const README_BLOCKS_CHECKED_ELSEWHERE: Record<string, string> = {
  // Uses `url` and `schema` from the test around it; the test compares it with its own (type-checked) code.
  "packages/tickets/README.md#PostgreSQL": "packages/tickets/test/postgres-readme.test.ts",
};

function sectionOf(block: CodeBlock): string {
  const before = readFileSync(join(ROOT, block.file), "utf8")
    .split("\n")
    .slice(0, block.line - 1);
  const heading = [...before].reverse().find((line) => line.startsWith("## "));
  return heading ? heading.slice(3).trim() : "";
}

const docExamples = exampleFiles(DOC_EXAMPLES);
const docBlocks = docPages().flatMap((page) => codeBlocks(page));
const tsDocBlocks = docBlocks.filter((b) => b.lang === "ts");

describe("code samples in docs/", () => {
  it("every ts block is a docs/examples file, or a fragment marked as such", () => {
    expect(tsDocBlocks.length).toBeGreaterThan(5);
    const files = [...docExamples.values()];
    for (const block of tsDocBlocks) {
      const where = `${block.file}:${block.line}`;
      if (block.code.startsWith(FRAGMENT_MARK)) continue;
      expect(files.includes(block.code), `${where} is not the exact content of a file in docs/examples/`).toBe(true);
    }
  });

  it("every docs/examples file is shown in a page, and is either run or compiled with a reason", () => {
    for (const [name, code] of docExamples) {
      expect(
        tsDocBlocks.some((b) => b.code === code),
        `docs/examples/${name} is in no page`,
      ).toBe(true);
      expect(RUNNABLE.includes(name) || name in COMPILE_ONLY, `${name}: run it or say why not`).toBe(true);
    }
    for (const name of [...RUNNABLE, ...Object.keys(COMPILE_ONLY)]) expect(docExamples.has(name)).toBe(true);
  });

  it("the examples and every fragment type-check (docs-check/tsconfig.json)", () => {
    const fragments = new Map(
      tsDocBlocks
        .filter((b) => b.code.startsWith(FRAGMENT_MARK))
        .map((b) => [join(ROOT, "docs-check", ".fragments", `${basename(b.file, ".md")}-${b.line}.ts`), b.code]),
    );
    const diagnostics = typeCheck(join(ROOT, "docs-check", "tsconfig.json"), fragments);
    expect(diagnostics).toEqual([]);
  });

  it("every json block parses", () => {
    for (const block of docBlocks.filter((b) => b.lang === "json")) {
      expect(() => JSON.parse(block.code), `${block.file}:${block.line}`).not.toThrow();
    }
  });

  it("every relative link in docs/ points at a file that exists", () => {
    for (const page of docPages()) {
      const text = readFileSync(page, "utf8");
      for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (!target || /^[a-z]+:/.test(target)) continue;
        const path = join(page, "..", target);
        expect(existsSync(path), `${relative(ROOT, page)} links to ${target}`).toBe(true);
      }
    }
  });
});

describe("code samples in README.md files", () => {
  const folders = readmeFolders();

  it.each(folders.map((folder) => [relative(ROOT, folder) || ".", folder]))(
    "%s: every ts block is an example file that its package compiles and a test uses, or is checked",
    (_name, folder) => {
      const readme = join(folder, "README.md");
      const blocks = codeBlocks(readme).filter((b) => b.lang === "ts");
      // The root README shows samples kept in the packages' examples folders.
      const owners = folder === ROOT.replace(/\/$/, "") ? folders.slice(1) : [folder];
      const virtual = new Map<string, string>();
      for (const block of blocks) {
        const owner = owners.find((dir) => [...exampleFiles(join(dir, "examples")).values()].includes(block.code));
        if (owner) {
          const name = [...exampleFiles(join(owner, "examples"))].find(([, code]) => code === block.code)?.[0] ?? "";
          const tsconfig = JSON.parse(readFileSync(join(owner, "tsconfig.json"), "utf8")) as { include?: string[] };
          expect(tsconfig.include, `${relative(ROOT, owner)}/tsconfig.json must compile examples/`).toContain(
            "examples",
          );
          const tests = readdirSync(join(owner, "test"), { withFileTypes: true })
            .filter((entry) => entry.isFile())
            .map((entry) => readFileSync(join(owner, "test", entry.name), "utf8"));
          const stem = name.replace(/\.ts$/, "");
          expect(
            tests.some((t) => t.includes(`examples/${stem}.js`) || t.includes(`examples/${stem}.ts`)),
            `no test in ${relative(ROOT, owner)}/test uses examples/${name}`,
          ).toBe(true);
          continue;
        }
        const key = `${block.file}#${sectionOf(block)}`;
        const checker = README_BLOCKS_CHECKED_ELSEWHERE[key];
        if (checker) {
          expect(readFileSync(join(ROOT, checker), "utf8")).toContain("README.md");
          continue;
        }
        // Not a file: compile it where it would live, so its imports resolve as for the package.
        virtual.set(join(folder, `.readme-block-${block.line}.ts`), block.code);
      }
      if (virtual.size > 0) {
        expect(typeCheck(join(folder, "tsconfig.json"), virtual, { onlyVirtual: true })).toEqual([]);
      }
    },
  );

  it("every json block in a README parses", () => {
    for (const folder of folders) {
      for (const block of codeBlocks(join(folder, "README.md")).filter((b) => b.lang === "json")) {
        expect(() => JSON.parse(block.code), `${block.file}:${block.line}`).not.toThrow();
      }
    }
  });
});
