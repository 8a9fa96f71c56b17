import type { Pack } from "@toolshed/schema";
import { type ContractChange, diffContracts, type PublishedContract } from "@toolshed/schema/internal";
import { connectInMemory, createLogger, createServer } from "@toolshed/server";

export const UPDATE_COMMAND = "TOOLSHED_UPDATE_SNAPSHOTS=1 npx vitest run release/test/snapshots.test.ts";

/** Everything a client sees of a pack before calling it: tools/list, resources, templates, prompts. */
export interface ContractSnapshot extends PublishedContract {
  tools: PublishedContract["tools"];
  resources: NonNullable<PublishedContract["resources"]>;
  resourceTemplates: NonNullable<PublishedContract["resourceTemplates"]>;
  prompts: NonNullable<PublishedContract["prompts"]>;
}

/** What the pack publishes, read through a real SDK Client over the runtime (createServer). */
export async function liveContract(pack: Pack): Promise<ContractSnapshot> {
  const server = createServer({
    name: "contract-snapshot",
    version: "0.0.0",
    packs: [pack],
    logger: createLogger({ level: "silent" }),
  });
  const client = await connectInMemory(server);
  try {
    const capabilities = client.getServerCapabilities() ?? {};
    const tools = (await client.listTools()).tools;
    const resources = capabilities.resources ? (await client.listResources()).resources : [];
    const resourceTemplates = capabilities.resources ? (await client.listResourceTemplates()).resourceTemplates : [];
    const prompts = capabilities.prompts ? (await client.listPrompts()).prompts : [];
    // Round-trip through JSON so the snapshot holds exactly what went over the wire.
    return JSON.parse(JSON.stringify({ tools, resources, resourceTemplates, prompts })) as ContractSnapshot;
  } finally {
    await client.close();
    await server.close();
  }
}

export interface SnapshotComparison {
  same: boolean;
  changes: ContractChange[];
  breaking: boolean;
}

/** Compares the committed snapshot with the live contract; differences diffContracts does not name count as additive. */
export function compareContracts(committed: ContractSnapshot, live: ContractSnapshot): SnapshotComparison {
  const same = JSON.stringify(committed) === JSON.stringify(live);
  const changes = same ? [] : diffContracts(committed, live);
  if (!same && changes.length === 0) {
    changes.push({ kind: "additive", at: "contract", message: "wording or metadata changed (titles, descriptions)" });
  }
  return { same, changes, breaking: changes.some((c) => c.kind === "breaking") };
}

/** The failure text: each difference classified, how to update the snapshot, and the changeset rule. */
export function describeDifference(pkg: string, snapshotPath: string, changes: ContractChange[]): string {
  const lines = [`${pkg}: the published contract differs from ${snapshotPath}:`];
  for (const kind of ["breaking", "additive"] as const) {
    for (const change of changes.filter((c) => c.kind === kind))
      lines.push(`  ${kind}: ${change.at}: ${change.message}`);
  }
  lines.push(
    `If the change is intended, update the snapshot: ${UPDATE_COMMAND}`,
    changes.some((c) => c.kind === "breaking")
      ? `A breaking difference needs a major changeset for ${pkg}: npx -y pnpm@12.4.2 changeset (choose major).`
      : "Additive differences need a changeset (minor) like any user-visible change.",
  );
  return lines.join("\n");
}
