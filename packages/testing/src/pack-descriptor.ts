import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isPackDescriptor, type PackStore, parseArguments } from "@toolshed/schema";
import { connectPack } from "./connect.js";

export interface CheckPackDescriptorOptions {
  /** The options to build the pack with (default none); checked against the descriptor's schema. */
  options?: Record<string, unknown>;
  /**
   * A PostgreSQL pool (a `pg` Pool, ideally on a schema of its own) to open the PostgreSQL store
   * on as well; without it only the SQLite store is opened.
   */
  postgresPool?: unknown;
}

/** What a descriptor was found to offer. */
export interface PackDescriptorReport {
  name: string;
  version: string;
  /** The stores that were opened, migrated twice, seeded twice and served. */
  stores: ("sqlite" | "postgres")[];
  /** The tools each opened pack lists over a real MCP client. */
  tools: string[];
}

/**
 * Checks a pack's entry point as a Toolshed server would use it: `toolshedPack` is a descriptor,
 * its options schema takes `options`, and each store it offers (SQLite on a temporary file, and
 * PostgreSQL on `postgresPool` when given) opens twice on the same database (migrations run once),
 * takes its demo data twice, and serves a pack whose tools a real MCP client lists. Throws an
 * Error naming every problem found.
 */
export async function checkPackDescriptor(
  candidate: unknown,
  options: CheckPackDescriptorOptions = {},
): Promise<PackDescriptorReport> {
  if (!isPackDescriptor(candidate)) {
    throw new Error(
      "not a pack descriptor: export one from the package's main entry as `export const toolshedPack = definePackDescriptor({ name, version, description, stores, pack })` (@toolshed/schema)",
    );
  }
  const descriptor = candidate;
  const parsed = parseArguments(descriptor.options as never, options.options ?? {});
  if (!parsed.success) {
    const problems = parsed.issues.map((i) => (i.path === "" ? i.message : `${i.path}: ${i.message}`));
    throw new Error(`pack "${descriptor.name}": its options schema refuses the options given: ${problems.join("; ")}`);
  }
  const packOptions = parsed.data as Record<string, unknown>;
  const report: PackDescriptorReport = { name: descriptor.name, version: descriptor.version, stores: [], tools: [] };
  const problems: string[] = [];
  const serve = async (kind: "sqlite" | "postgres" | "none", open: () => Promise<PackStore | undefined>) => {
    const opened: PackStore[] = [];
    try {
      for (let round = 1; round <= 2; round++) {
        const store = await open();
        if (store !== undefined) opened.push(store);
        if (store !== undefined && descriptor.seedDemo) await descriptor.seedDemo(store);
        const pack = descriptor.pack({ store: store as PackStore, options: packOptions });
        if ((pack as { kind?: unknown })?.kind !== "pack") {
          problems.push(`${kind}: pack() must return definePack(…), got ${typeof pack}`);
          return;
        }
        if (round === 2) {
          const connection = await connectPack(pack, { closePacks: false });
          try {
            const names = (await connection.listTools()).map((tool) => tool.name);
            for (const name of names) if (!report.tools.includes(name)) report.tools.push(name);
          } finally {
            await connection.close();
          }
        }
      }
      if (kind !== "none") report.stores.push(kind);
    } catch (error) {
      problems.push(`${kind === "none" ? "pack" : `${kind} store`}: ${(error as Error)?.message ?? String(error)}`);
    } finally {
      for (const store of opened) await Promise.resolve(store.close()).catch(() => {});
    }
  };
  const stores = descriptor.stores ?? {};
  if (stores.sqlite === undefined && stores.postgres === undefined) await serve("none", async () => undefined);
  if (stores.sqlite !== undefined) {
    const folder = mkdtempSync(join(tmpdir(), "toolshed-pack-check-"));
    try {
      const kind = await stores.sqlite();
      await serve("sqlite", async () => kind.open(join(folder, "pack.db"), { readonly: false }));
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }
  if (stores.postgres !== undefined && options.postgresPool !== undefined) {
    const kind = await stores.postgres();
    await serve("postgres", () => kind.open(options.postgresPool, { readonly: false }));
  }
  if (problems.length > 0) throw new Error(`pack "${descriptor.name}": ${problems.join("; ")}`);
  return report;
}
