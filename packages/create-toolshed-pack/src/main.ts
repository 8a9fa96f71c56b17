import { relative } from "node:path";
import { parseArgs } from "node:util";
import { ScaffoldError, type ScaffoldResult, scaffoldPack, shortPath, toolshedVersion } from "./scaffold.js";

export interface CliIo {
  cwd: string;
  out: (text: string) => void;
  err: (text: string) => void;
}

export const USAGE = `Usage: create-toolshed-pack <name> [options]

Writes a Toolshed tool pack: two tools, a resource, a prompt, a SQLite store, a README and
tests with @toolshed/testing.

  <name>                 npm package name, e.g. my-pack or @acme/weather-pack

Options:
  --dir <path>           folder to write into (default ./<name>, or packages/<name> in the
                         Toolshed monorepo); it must be empty or new
  --description <text>   one line for package.json and the README
  --workspace            a package of the Toolshed monorepo (detected when run inside it)
  --standalone           a plain npm project, also inside the monorepo
  --force                write into a folder that is not empty; files that would change
                         are kept as <file>.bak
  -h, --help             show this help
  -v, --version          show the version

Example: npm create toolshed-pack@latest my-pack
`;

/** How to install a standalone pack's @toolshed packages before they are published. */
const INSTALL_TODAY = "https://github.com/toolshed-dev/toolshed/blob/main/docs/install.md";

const OPTIONS = {
  dir: { type: "string" },
  description: { type: "string" },
  workspace: { type: "boolean" },
  standalone: { type: "boolean" },
  force: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "v" },
} as const;

/** Runs the command line; returns the exit code (0 done, 1 could not write, 2 usage error). */
export async function main(args: readonly string[], io: CliIo): Promise<number> {
  const usageError = (message: string) => {
    io.err(`create-toolshed-pack: ${message}\nRun create-toolshed-pack --help for the options.\n`);
    return 2;
  };
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; args: string[] }>>;
  try {
    parsed = parseArgs({ args: [...args], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    return usageError(explainParseError(error));
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(USAGE);
    return 0;
  }
  if (values.version) {
    io.out(`${toolshedVersion()}\n`);
    return 0;
  }
  if (positionals.length === 0) {
    return usageError("give the package name of the new pack, e.g. create-toolshed-pack my-pack");
  }
  if (positionals.length > 1) {
    return usageError(
      `give one package name, got ${positionals.length} (${positionals.join(" ")}); quote a description with spaces: --description "…"`,
    );
  }
  if (values.workspace && values.standalone) return usageError("choose one of --workspace and --standalone");
  for (const flag of ["dir", "description"] as const) {
    const value = values[flag];
    if (value !== undefined && value.trim() === "")
      return usageError(`--${flag} is empty; give a value or leave it out`);
  }
  try {
    const result = scaffoldPack({
      name: positionals[0] ?? "",
      ...(values.dir === undefined ? {} : { dir: values.dir }),
      ...(values.description === undefined ? {} : { description: values.description }),
      ...(values.workspace ? { mode: "workspace" as const } : values.standalone ? { mode: "standalone" as const } : {}),
      force: values.force ?? false,
      cwd: io.cwd,
    });
    io.out(report(result, io.cwd));
    return 0;
  } catch (error) {
    if (error instanceof ScaffoldError) {
      if (error.usage) return usageError(error.message);
      io.err(`create-toolshed-pack: ${error.message}\n`);
      return 1;
    }
    // Never a stack trace: say what happened and where to report it.
    io.err(
      `create-toolshed-pack: unexpected error (${error instanceof Error ? error.message : String(error)}); please report it at https://github.com/toolshed-dev/toolshed/issues\n`,
    );
    return 1;
  }
}

function explainParseError(error: unknown): string {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    const option = /'([^']+)'/.exec(message)?.[1] ?? "";
    return `unknown option ${option}; the options are --dir, --description, --workspace, --standalone, --force, --help, --version`;
  }
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    const option = /'(--?[\w-]+)/.exec(message)?.[1] ?? "the option";
    return `${option} needs a value, e.g. --dir packs/my-pack or --description "Weather tools"`;
  }
  return message;
}

function report(result: ScaffoldResult, cwd: string): string {
  const where = shortPath(result.dir, cwd);
  const lines = [
    `Created ${result.names.packageName} in ${where} (${result.mode === "workspace" ? "a package of the Toolshed monorepo" : "a standalone npm project"}).`,
    `Pack "${result.names.pack}": tools ${result.names.pack}_get_item and ${result.names.pack}_add_item.`,
    "",
  ];
  for (const file of result.files) {
    const path = shortPath(file.path, result.workspaceRoot ?? result.dir);
    if (file.action === "created") lines.push(`  created    ${path}`);
    else if (file.action === "unchanged") lines.push(`  unchanged  ${path}`);
    else
      lines.push(
        `  replaced   ${path} (the old one is ${shortPath(file.backup ?? "", result.workspaceRoot ?? result.dir)})`,
      );
  }
  lines.push("", "Next:");
  if (result.mode === "workspace") {
    const root = result.workspaceRoot ?? "";
    const cd = shortPath(root, cwd);
    if (cd !== ".") lines.push(`  cd ${cd}`);
    lines.push(
      "  npx -y pnpm@12.4.2 install",
      `  npx -y pnpm@12.4.2 --filter ${result.names.packageName} build`,
      `  npx -y pnpm@12.4.2 --filter ${result.names.packageName} test`,
      `  node_modules/.bin/biome check --write ${relative(root, result.dir)}`,
      `To release it with Toolshed, add "${result.names.packageName}" to the fixed group in .changeset/config.json (${relative(root, result.dir)} has its changeset in .changeset/).`,
    );
  } else {
    if (where !== ".") lines.push(`  cd ${where}`);
    lines.push(
      "  npm install",
      "  npm test",
      "  npm run build",
      "",
      "Until Toolshed's first release its packages are not on npm, so npm install fails (E404). In a",
      "clone of Toolshed, run npm run pack-local -- @toolshed/server @toolshed/storage @toolshed/testing",
      `and run the npm install line it prints in ${where === "." ? "this folder" : where} instead: ${INSTALL_TODAY}`,
    );
  }
  return `${lines.join("\n")}\n`;
}
