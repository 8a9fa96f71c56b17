// One app, two copies of a package: its ESM build imported and its CommonJS build required (a
// dependency that uses require). Errors made by either copy must be recognised by the other
// (issue 58.8): before, a JsonRpcError from the CommonJS copy thrown in a resource read or a
// request middleware was masked as -32603 by the ESM runtime. The builds are loaded by plain Node
// in a child process (support/dual-copies.mjs): this runner would resolve both to the sources.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/** Every error class the packages export, by package. */
const CLASSES: Record<string, string[]> = {
  "@toolshed/errors": [
    "ToolError",
    "InvalidArgumentsError",
    "NotFoundError",
    "ConflictError",
    "PermissionDeniedError",
    "FailedPreconditionError",
    "RateLimitedError",
    "TimeoutError",
    "CancelledError",
    "UnavailableError",
  ],
  "@toolshed/server": ["JsonRpcError"],
  "@toolshed/schema": ["DefinitionError"],
  "@toolshed/http": ["HttpConfigError"],
  "@toolshed/storage": ["StorageOpenError", "MigrationError"],
  "@toolshed/packs": ["PackConfigError", "DatabaseConnectError"],
};

/** The branded class each one extends, when it extends one. */
const PARENT: Record<string, string> = {
  InvalidArgumentsError: "ToolError",
  NotFoundError: "ToolError",
  ConflictError: "ToolError",
  PermissionDeniedError: "ToolError",
  FailedPreconditionError: "ToolError",
  RateLimitedError: "ToolError",
  TimeoutError: "ToolError",
  CancelledError: "ToolError",
  UnavailableError: "ToolError",
  MigrationError: "StorageOpenError",
};

interface Outcome {
  resolved: string;
  sameClass: boolean;
  checks: Array<[string, boolean]>;
  answers: unknown[];
}

function run(): Outcome {
  const out = execFileSync(
    process.execPath,
    ["--no-warnings", fileURLToPath(new URL("support/dual-copies.mjs", import.meta.url)), JSON.stringify(CLASSES)],
    { cwd: fileURLToPath(new URL("..", import.meta.url)), encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "" } },
  );
  return JSON.parse(out) as Outcome;
}

describe("error classes across the CommonJS and ESM copies (issue 58.8)", () => {
  const outcome = run();

  it("the CommonJS build is another copy: its classes are other objects", () => {
    expect(outcome.resolved).toMatch(/dist\/index\.cjs$/);
    expect(outcome.sameClass).toBe(false);
  });

  it("an error of either copy is an instance of its class (or a parent) in the other, and of no other class", () => {
    const names = Object.values(CLASSES).flat();
    const expected: Array<[string, boolean]> = [];
    for (const name of names) {
      for (const other of names) {
        const is = other === name || PARENT[other] === name;
        expected.push([`${other} (CommonJS) instanceof ${name} (ESM)`, is]);
        expected.push([`${other} (ESM) instanceof ${name} (CommonJS)`, is]);
      }
      expected.push([`Error instanceof ${name}`, false]);
    }
    expected.push(["Mine instanceof Mine", true], ["NotFoundError instanceof Mine", false]);
    expected.push(["isToolError(NotFoundError (CommonJS))", true]);
    expect(outcome.checks).toEqual(expected);
  });

  it("a JsonRpcError of the CommonJS copy thrown in a resource read or a request middleware reaches the client as it is", () => {
    expect(outcome.answers).toEqual([
      { code: -32002, message: expect.stringContaining("Resource not found: docs://gone") },
      { code: -32602, message: expect.stringContaining("Invalid params: not today") },
    ]);
  });
});
