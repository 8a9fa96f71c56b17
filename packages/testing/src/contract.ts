import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Pack } from "@toolshed/schema";
import { type ContractChange, diffContracts, type PublishedContract } from "@toolshed/schema/internal";
import { breakingChangesetsFor, findChangesetDir, isZeroMajor, nearestPackage } from "./changesets.js";
import { connectPack } from "./connect.js";

export type { ContractChange };

/** Everything a client sees of a pack before calling it: tools/list, resources, templates, prompts. */
export interface ContractSnapshot extends PublishedContract {
  tools: PublishedContract["tools"];
  resources: NonNullable<PublishedContract["resources"]>;
  resourceTemplates: NonNullable<PublishedContract["resourceTemplates"]>;
  prompts: NonNullable<PublishedContract["prompts"]>;
}

/** A copy with every object's keys sorted (arrays keep their order), so snapshots do not churn. */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
  return out;
}

/** The snapshot file's text: two-space JSON with sorted keys and a final newline. */
export function formatContract(contract: ContractSnapshot): string {
  return `${JSON.stringify(sortKeys(contract), null, 2)}\n`;
}

/**
 * What packs publish, read through the official SDK client over a Toolshed server, as JSON went
 * over the wire, keys sorted. Resources are the fixed ones the packs define: what templates list
 * from the data (one resource per note, say) is data, not contract. The packs are left open.
 */
export async function packContract(packs: Pack | readonly Pack[]): Promise<ContractSnapshot> {
  const list = Array.isArray(packs) ? (packs as readonly Pack[]) : [packs as Pack];
  const fixed = new Set(list.flatMap((p) => p.resources.map((r) => r.uri)));
  const conn = await connectPack(list, { closePacks: false });
  try {
    const { client } = conn;
    const capabilities = client.getServerCapabilities() ?? {};
    const tools = (await client.listTools()).tools;
    const listed = capabilities.resources ? (await client.listResources()).resources : [];
    const resources = listed.filter((r) => fixed.has(r.uri));
    const resourceTemplates = capabilities.resources ? (await client.listResourceTemplates()).resourceTemplates : [];
    const prompts = capabilities.prompts ? (await client.listPrompts()).prompts : [];
    // Round-trip through JSON so the snapshot holds exactly what went over the wire.
    return sortKeys(JSON.parse(JSON.stringify({ tools, resources, resourceTemplates, prompts }))) as ContractSnapshot;
  } finally {
    await conn.close();
  }
}

export interface ContractComparison {
  same: boolean;
  changes: ContractChange[];
  breaking: boolean;
}

/** Compares two contracts; differences `diffContracts` does not name (titles, wording) count as additive. */
export function compareContracts(before: ContractSnapshot, after: ContractSnapshot): ContractComparison {
  const same = JSON.stringify(sortKeys(before)) === JSON.stringify(sortKeys(after));
  // Sorted on both sides: diffContracts compares some parts (annotations) as JSON text.
  const changes = same ? [] : diffContracts(sortKeys(before) as ContractSnapshot, sortKeys(after) as ContractSnapshot);
  if (!same && changes.length === 0) {
    changes.push({ kind: "additive", at: "contract", message: "wording or metadata changed (titles, descriptions)" });
  }
  return { same, changes, breaking: changes.some((c) => c.kind === "breaking") };
}

/** One line per change, breaking ones first. */
export function describeChanges(changes: readonly ContractChange[]): string[] {
  const lines: string[] = [];
  for (const kind of ["breaking", "additive"] as const) {
    for (const change of changes.filter((c) => c.kind === kind))
      lines.push(`  ${kind}: ${change.at}: ${change.message}`);
  }
  return lines;
}

export const UPDATE_SNAPSHOTS_ENV = "TOOLSHED_UPDATE_SNAPSHOTS";

export interface CheckPackContractOptions {
  /** The npm package the pack ships in; default: the `name` of the package.json nearest the snapshot file. */
  packageName?: string;
  /** Where pending changesets live; default: the first `.changeset` folder above the snapshot file. */
  changesetDir?: string;
  /** Write the snapshot when it differs; default: `TOOLSHED_UPDATE_SNAPSHOTS=1` in the environment. */
  update?: boolean;
}

/**
 * Snapshots what a pack publishes (tools/list, resources, templates, prompts) into `snapshotFile`
 * and fails when it changed. The file is written when missing, or when it differs and updating
 * was asked for (`TOOLSHED_UPDATE_SNAPSHOTS=1`). A breaking change (a removed tool, a narrowed
 * input, a changed output) is refused, updating or not, unless a pending changeset bumps the
 * pack's package with `major`. Returns the changes found (none for a new or unchanged snapshot).
 */
export async function checkPackContract(
  packs: Pack | readonly Pack[],
  snapshotFile: string,
  options: CheckPackContractOptions = {},
): Promise<ContractChange[]> {
  const file = resolve(snapshotFile);
  const live = await packContract(packs);
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, formatContract(live));
    return [];
  }
  const text = readFileSync(file, "utf8");
  const { same, changes, breaking } = compareContracts(JSON.parse(text) as ContractSnapshot, live);
  const update = options.update ?? process.env[UPDATE_SNAPSHOTS_ENV] === "1";
  if (same) {
    // Same contract, other layout (keys in wire order, other indent): updating rewrites it, nothing fails.
    if (update && text !== formatContract(live)) writeFileSync(file, formatContract(live));
    return [];
  }
  const head = [`The published contract differs from ${file}:`, ...describeChanges(changes)];
  if (breaking) {
    const nearest = nearestPackage(dirname(file));
    const packageName = options.packageName ?? nearest?.name;
    const version = nearest?.name === packageName ? nearest?.version : undefined;
    const zero = isZeroMajor(version);
    const changesetDir = options.changesetDir ?? findChangesetDir(dirname(file));
    const found = packageName && changesetDir ? breakingChangesetsFor(changesetDir, packageName, version) : [];
    if (found.length === 0) {
      const where = changesetDir ?? "a .changeset folder (none found above the snapshot file)";
      const name = packageName ?? "<your package>";
      throw new Error(
        [
          ...head,
          zero
            ? `A breaking change needs a new version that caret ranges do not take: while ${name} is ${version}, a minor; add a changeset in ${where} whose front matter names "${name}": minor (or major),`
            : `A breaking change needs a major version: add a changeset in ${where} whose front matter names "${name}": major,`,
          `then update the snapshot with ${UPDATE_SNAPSHOTS_ENV}=1. Or keep the contract compatible.`,
        ].join("\n"),
      );
    }
    if (!update) {
      throw new Error(
        [
          ...head,
          `${zero ? "Breaking-change" : "Major"} changeset found (${found.join(", ")}); the snapshot is out of date, run with ${UPDATE_SNAPSHOTS_ENV}=1 to update it.`,
        ].join("\n"),
      );
    }
  } else if (!update) {
    throw new Error(
      [...head, `The snapshot is out of date, run with ${UPDATE_SNAPSHOTS_ENV}=1 to update it.`].join("\n"),
    );
  }
  writeFileSync(file, formatContract(live));
  return changes;
}
