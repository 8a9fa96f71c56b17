// Who competes, and how each is started. The first of each list is Toolshed; `reference` marks
// the contenders the report computes ratios against. HTTP contenders speak 2025 (2025-06-18
// headers, no envelope) unless they say `era: "modern"`: then every request is 2026-07-28, with
// its headers and `_meta` envelope (harness/mcp.mjs). Ids are what the report's targets name.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

export const TOOLS = [
  { tool: "add", args: { a: 2, b: 3 }, value: { sum: 5 } },
  { tool: "get_note", args: { title: "groceries" }, value: { title: "groceries", body: "milk, eggs", words: 2 } },
];

export const HTTP_CONTENDERS = [
  { id: "toolshed", label: "Toolshed stateless", script: "toolshed-http.mjs", args: ["--mode", "stateless"] },
  // The same server as the row above, loaded by 2026-07-28 clients.
  {
    id: "toolshed-modern",
    label: "Toolshed stateless, 2026-07-28",
    script: "toolshed-http.mjs",
    args: ["--mode", "stateless"],
    era: "modern",
  },
  {
    id: "toolshed-sessions",
    label: "Toolshed sessions",
    script: "toolshed-http.mjs",
    args: ["--mode", "sessions"],
    session: true,
  },
  {
    id: "sdk-stateless",
    label: "SDK stateless (server per request)",
    script: "sdk-http.mjs",
    args: ["--mode", "stateless"],
    reference: true,
  },
  {
    id: "sdk-stateful",
    label: "SDK stateful",
    script: "sdk-http.mjs",
    args: ["--mode", "stateful"],
    session: true,
    reference: true,
  },
  // The official SDK v2 entry (one process, both eras): 2025 clients reach its legacy stateless
  // serving, 2026-07-28 clients its modern path.
  {
    id: "sdk2-legacy",
    label: "SDK v2 createMcpHandler, 2025 era",
    script: "sdk2-http.mjs",
    args: [],
    reference: true,
  },
  {
    id: "sdk2-modern",
    label: "SDK v2 createMcpHandler, 2026-07-28",
    script: "sdk2-http.mjs",
    args: [],
    era: "modern",
    reference: true,
  },
  {
    id: "fastmcp",
    label: "FastMCP stateless",
    script: "fastmcp-http.mjs",
    args: ["--transport", "http"],
    reference: true,
  },
  { id: "raw", label: "raw node:http", script: "raw-http.mjs", args: [], reference: true },
].map((c) => ({ ...c, script: join(here, c.script) }));

// The Toolshed stdio contender is the real bin (apps/stdio-server), serving the notes pack.
const toolshedStdio = join(dirname(require.resolve("@toolshed/stdio-server")), "cli.js");

export const STDIO_CONTENDERS = [
  {
    id: "toolshed",
    label: "Toolshed stdio (toolshed-stdio bin)",
    args: (db) => [toolshedStdio, "--db", db, "--packs", "notes", "--log-level", "warn"],
  },
  { id: "sdk", label: "SDK stdio", args: (db) => [join(here, "sdk-stdio.mjs"), "--db", db], reference: true },
  {
    id: "fastmcp",
    label: "FastMCP stdio",
    args: (db) => [join(here, "fastmcp-http.mjs"), "--db", db, "--transport", "stdio"],
    reference: true,
  },
];
