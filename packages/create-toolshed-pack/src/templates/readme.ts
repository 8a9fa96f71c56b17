import { type TemplateContext, toolNames } from "./context.js";

export function readme(ctx: TemplateContext): string {
  const { packageName, camel, pascal, pack, scheme } = ctx.names;
  const { get, add } = toolNames(ctx);
  const workspace = ctx.mode === "workspace";
  const run = (script: string) =>
    workspace
      ? `npx -y pnpm@12.4.2 --filter ${packageName} ${script}`
      : `npm ${script === "test" ? "test" : `run ${script}`}`;
  // Until the first release, npm install cannot fetch the @toolshed packages a standalone pack asks for.
  const beforeRelease = workspace
    ? ""
    : "\nUntil Toolshed's first release its packages are not on npm, so `npm install` fails (E404). In a\n" +
      "clone of Toolshed, run `npm run pack-local -- @toolshed/server @toolshed/storage @toolshed/testing`\n" +
      "and run the `npm install` line it prints in this folder instead\n" +
      "(https://github.com/toolshed-dev/toolshed/blob/main/docs/install.md).\n";
  return `# ${packageName}

${ctx.description}

A [Toolshed](https://github.com/toolshed-dev/toolshed) tool pack for MCP servers. It holds:

| What | Name | |
| --- | --- | --- |
| tool | \`${get}\` | one item by its id (read-only) |
| tool | \`${add}\` | adds an item, returns it with its id |
| resource template | \`${scheme}://items/{id}\` | an item's text |
| prompt | \`${pack}_review_item\` | asks the model to review one item |

Items live in SQLite (\`Sqlite${pascal}Store\`, on \`@toolshed/storage\`): a file, created and upgraded in
place by its migrations, or \`:memory:\`.

## Use it

\`\`\`ts
import { createServer, StdioTransport } from "@toolshed/server";
import { Sqlite${pascal}Store, ${camel}Pack } from "${packageName}";

const store = Sqlite${pascal}Store.open("items.db");
const server = createServer({ name: "my-server", version: "1.0.0", packs: [${camel}Pack({ store, closeStore: true })] });
await server.connect(new StdioTransport());
\`\`\`

\`examples/stdio.ts\` is this, ready to run with a TypeScript runner (\`npx tsx examples/stdio.ts\`).

## Layout

\`\`\`
src/
  index.ts          the public API: named exports only
  pack.ts           ${camel}Pack(): the tools, resource and prompt over one store
  store.ts          ${pascal}Store: the async interface every store implements; tools only talk to it
  schemas.ts        shared Zod building blocks and limits
  tools/            one tool per file, its input schema next to its handler
  resources/        the ${scheme}://items/{id} resource template
  prompts/          the ${pack}_review_item prompt
  sqlite/           Sqlite${pascal}Store and its migrations (append only)
test/               tests with @toolshed/testing
examples/           serving the pack over stdio
\`\`\`

To serve several instances from one database, add \`src/postgres/\` with a \`${pascal}Store\` on
PostgreSQL (\`@toolshed/storage/postgres\` opens the pool and runs migrations), and run the same tests
against both stores.

## Add a tool

1. Write \`src/tools/<name>.ts\` as the two there: a bounded Zod input where every property has a
   \`.describe()\`, an output schema, annotations (\`readOnlyHint\` and friends), and a description
   that tells the model when to use it. Name it \`${pack}_<verb>_<noun>\`.
2. Throw \`ToolError\`s from \`@toolshed/errors\` (\`NotFoundError\`, \`ConflictError\`, …) for what
   the model can fix, with a message that says what would work.
3. Add it to \`src/pack.ts\`, and test it in \`test/\`.

## Test
${beforeRelease}
\`\`\`sh
${run("test")}        # tools over a real MCP client, a seeded fuzz run, the contract snapshot
${run("typecheck")}
${run("build")}
\`\`\`

- \`connectPack(pack)\` mounts the pack on a Toolshed server with an MCP client in memory;
  \`expectToolResult\`, \`expectToolError\` and \`expectInvalidArguments\` check results against the
  Toolshed contract.
- \`fuzzPack(pack, { runs, seed })\` calls every tool with arguments made from its published schema.
- \`checkPackContract(pack, "contract.snapshot.json")\` writes what the pack publishes on the first
  run (commit it) and fails when it changes; update it with \`TOOLSHED_UPDATE_SNAPSHOTS=1\`. A breaking
  change needs a major changeset.
`;
}
