import type { Pack } from "@toolshed/schema";
import type { ContractChange } from "@toolshed/schema/internal";
import {
  type ContractComparison,
  type ContractSnapshot,
  compareContracts as compare,
  describeChanges,
  packContract,
} from "@toolshed/testing";

export type { ContractSnapshot };

export const UPDATE_COMMAND = "TOOLSHED_UPDATE_SNAPSHOTS=1 npx vitest run release/test/snapshots.test.ts";

/** What the pack publishes, read through a real SDK Client over the runtime (the kit's packContract). */
export async function liveContract(pack: Pack): Promise<ContractSnapshot> {
  return packContract(pack);
}

export type SnapshotComparison = ContractComparison;

/** Compares the committed snapshot with the live contract; differences diffContracts does not name count as additive. */
export function compareContracts(committed: ContractSnapshot, live: ContractSnapshot): SnapshotComparison {
  return compare(committed, live);
}

/** The failure text: each difference classified, how to update the snapshot, and the changeset rule. */
export function describeDifference(pkg: string, snapshotPath: string, changes: ContractChange[]): string {
  return [
    `${pkg}: the published contract differs from ${snapshotPath}:`,
    ...describeChanges(changes),
    `If the change is intended, update the snapshot: ${UPDATE_COMMAND}`,
    changes.some((c) => c.kind === "breaking")
      ? `A breaking difference needs a major changeset for ${pkg} (a minor while it is 0.x, which caret ranges do not cross): npx -y pnpm@12.4.2 changeset.`
      : "Additive differences need a changeset (minor) like any user-visible change.",
  ].join("\n");
}
