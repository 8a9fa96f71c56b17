import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNpmProject, npmInstallAsync, runTsc } from "../scripts/lib/npm-project.mjs";
import { packedTarballs } from "../scripts/lib/pack.mjs";
import { compiledInPlace, installedBetterSqlite3, userNpmCache } from "../scripts/lib/user-npm-cache.mjs";
import { CATALOG, externalPeers, internalClosure, nativeSqlitePeers, ROOT } from "../scripts/lib/workspace.mjs";

const FIXTURES = join(import.meta.dirname, "..", "scripts", "fixtures");
const cleanup: string[] = [];
let tarballs: Map<string, string>;
// Both projects install at once: each compiles better-sqlite3 on one core.
let ticketsProject: Promise<string>;
let stdioProject: Promise<string>;
let sdk2Project: Promise<string>;

function tarballsFor(names: string[]): string[] {
  return names.map((name) => {
    const file = tarballs.get(name);
    if (!file) throw new Error(`no tarball for ${name}`);
    return file;
  });
}

/** Runs a fixture script with node inside the npm project and returns the JSON line it prints. */
function runFixture(project: string, fixture: string, args: string[] = []): unknown {
  copyFileSync(join(FIXTURES, fixture), join(project, fixture));
  const result = spawnSync(process.execPath, [fixture, ...args], { cwd: project, encoding: "utf8", timeout: 120_000 });
  if (result.status !== 0)
    throw new Error(`${fixture} failed (exit ${result.status}):\n${result.stdout}\n${result.stderr}`);
  const line = result.stdout.trim().split("\n").at(-1) ?? "";
  return JSON.parse(line);
}

// better-sqlite3 is an optional peer: a user on a Node without node:sqlite (before 22.16) adds it.
const NATIVE_SQLITE = nativeSqlitePeers(["@toolshed/storage"]);

beforeAll(() => {
  tarballs = packedTarballs();
  ticketsProject = installed(
    "toolshed-tickets-user-",
    [...new Set([...internalClosure("@toolshed/tickets"), ...internalClosure("@toolshed/server")])],
    // For the strict type-check of a consumer, as a TypeScript user would have.
    [`@types/node@${CATALOG["@types/node"]}`, ...NATIVE_SQLITE],
  );
  // The SDK is the test's own client here; the server brings its own copy as a dependency.
  stdioProject = installed("toolshed-stdio-user-", internalClosure("@toolshed/stdio-server"), [
    `@modelcontextprotocol/sdk@${CATALOG["@modelcontextprotocol/sdk"]}`,
    ...NATIVE_SQLITE,
  ]);
  // No pack and no database: the server next to the SDK v2 packages (an optional peer) installs fast.
  sdk2Project = installed("toolshed-sdk2-user-", internalClosure("@toolshed/server"), [
    `@modelcontextprotocol/server@${CATALOG["@modelcontextprotocol/server"]}`,
    `@modelcontextprotocol/client@${CATALOG["@modelcontextprotocol/client"]}`,
  ]);
  // Failures surface in the test that awaits them; this only stops an unhandled rejection.
  ticketsProject.catch(() => {});
  stdioProject.catch(() => {});
  sdk2Project.catch(() => {});
});

/** A fresh npm project with these of our tarballs and their external peers installed. */
async function installed(prefix: string, ours: string[], extra: string[] = []): Promise<string> {
  const project = createNpmProject(prefix);
  cleanup.push(project);
  await npmInstallAsync(project, [...tarballsFor(ours), ...externalPeers(ours), ...extra]);
  return project;
}

afterAll(() => {
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
});

describe("installed from tarballs, outside the workspace", () => {
  it("a project with only @toolshed/tickets (and what it needs) mounts the pack on its own McpServer and on createServer", async () => {
    const project = await ticketsProject;
    // Outside the workspace, so nothing can resolve from the monorepo's node_modules.
    expect(relative(realpathSync(ROOT), realpathSync(project)).startsWith("..")).toBe(true);
    // Only the tickets pack and what it needs: no other pack, no app.
    expect(readdirSync(join(project, "node_modules", "@toolshed")).sort()).toEqual([
      "errors",
      "schema",
      "server",
      "storage",
      "tickets",
    ]);
    // Where Node has no node:sqlite, better-sqlite3 comes as a user's does, as a prebuilt binary (the
    // workspace's own, see user-npm-cache.mjs), and is not compiled again here.
    for (const spec of NATIVE_SQLITE) {
      expect(installedBetterSqlite3(project)).toBe(spec.split("@").at(-1));
      expect(compiledInPlace(project), userNpmCache().reason ?? "compiled, though the prebuilt binary was there").toBe(
        false,
      );
    }

    const seen = runFixture(project, "tickets-smoke.mjs") as Record<
      "own" | "runtime",
      { tools: string[]; isError: boolean; structuredContent: { result: Array<{ id: string; status: string }> } }
    >;
    for (const side of ["own", "runtime"] as const) {
      expect(seen[side].tools).toEqual([
        "add_ticket_comment",
        "bulk_update_ticket_status",
        "create_ticket",
        "get_ticket",
        "search_tickets",
        "update_ticket_status",
      ]);
      expect(seen[side].isError).toBe(false);
      // The README's promise: two open tickets match, T-1009 ranked above T-1001.
      expect(seen[side].structuredContent.result.map((t) => t.id)).toEqual(["T-1009", "T-1001"]);
    }
  });

  it("a strict TypeScript consumer (skipLibCheck: false) type-checks against the installed packages", async () => {
    const project = await ticketsProject;
    writeFileSync(
      join(project, "consumer.ts"),
      [
        'import { ToolError } from "@toolshed/errors";',
        'import { defineTool } from "@toolshed/schema";',
        'import { attachPack, createServer } from "@toolshed/server";',
        'import { openSqlite } from "@toolshed/storage";',
        'import { ticketsPack } from "@toolshed/tickets";',
        "export const used = [ToolError, defineTool, attachPack, createServer, openSqlite, ticketsPack];",
        "",
      ].join("\n"),
    );
    const tsc = runTsc(project, ["consumer.ts"]);
    expect(tsc.output).toBe("");
    expect(tsc.status).toBe(0);
  });

  it("@toolshed/server mounts a pack on an SDK v2 McpServer that a v2 client calls in both eras", async () => {
    const project = await sdk2Project;
    expect(readdirSync(join(project, "node_modules", "@toolshed")).sort()).toEqual(["errors", "schema", "server"]);
    type Seen = {
      era: string;
      inputSchema: unknown;
      sum: unknown;
      invalid: { isError: boolean; text: string };
      greeting: { isError: boolean; structuredContent: unknown; text: string };
    };
    const seen = runFixture(project, "sdk2-smoke.mjs") as { modern: Seen; legacy: Seen };
    for (const era of ["modern", "legacy"] as const) {
      expect(seen[era].era).toBe(era);
      // Toolshed's portable schema (C5) and its own argument hints (C6), not the SDK's.
      expect(seen[era].inputSchema).toEqual({
        type: "object",
        properties: {
          a: { type: "number", description: "First number" },
          b: { type: "number", description: "Second number" },
        },
        required: ["a", "b"],
        additionalProperties: false,
      });
      expect(seen[era].sum).toEqual({ result: 5 });
      expect(seen[era].invalid.isError).toBe(true);
      expect(seen[era].invalid.text).toMatch(/^Invalid arguments for tool add:\nb: /);
    }
    // 2026-07-28: the question went out as input_required and the retry completed the call.
    expect(seen.modern.greeting).toMatchObject({ isError: false, structuredContent: { result: "hello Ada" } });
    // 2025 requests to createMcpHandler have no session to ask on.
    expect(seen.legacy.greeting).toMatchObject({ isError: true });
    expect(seen.legacy.greeting.text).toContain("this server runs without sessions");
  });

  it("toolshed-stdio from the installed @toolshed/stdio-server tarball lists its tools over stdio", async () => {
    const project = await stdioProject;
    const bin = join("node_modules", ".bin", "toolshed-stdio");
    expect(existsSync(join(project, bin))).toBe(true);

    const seen = runFixture(project, "stdio-tools.mjs", [bin, join(project, "data", "toolshed.db")]) as {
      tools: string[];
      search: { result: Array<{ id: string }> };
    };
    expect(seen.tools).toEqual(
      [
        "add_ticket_comment",
        "bulk_update_ticket_status",
        "create_note",
        "create_ticket",
        "crm_bulk_update_tier",
        "crm_create_account",
        "crm_get_account",
        "crm_search_accounts",
        "delete_note",
        "get_note",
        "get_ticket",
        "list_notes",
        "search_notes",
        "search_tickets",
        "update_note",
        "update_ticket_status",
      ].sort(),
    );
    expect(seen.search.result.map((t) => t.id)).toEqual(["T-1009", "T-1001"]);
  });
});
