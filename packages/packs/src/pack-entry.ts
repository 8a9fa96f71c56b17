import { toolshedPack as crm } from "@toolshed/crm";
import { didYouMean } from "@toolshed/errors";
import { toolshedPack as notes } from "@toolshed/notes";
import {
  type AnyPackDescriptor,
  DefinitionError,
  type Pack,
  type PackChange,
  type PackStore,
  type PostgresPackStore,
  parseArguments,
  reshapePack,
  type SqlitePackStore,
} from "@toolshed/schema";
import { toolshedPack as tickets } from "@toolshed/tickets";
import { PackConfigError, type PackName } from "./pack-names.js";

/** Where a pack keeps its data: a SQLite file (or `:memory:`), or a PostgreSQL URL with an optional schema. */
export type PackDatabase =
  | { db: string; databaseUrl?: undefined; databaseSchema?: undefined }
  | { databaseUrl: string; databaseSchema?: string; db?: undefined };

/** A pack to open: its descriptor, the name it is served under and its options. */
export interface PackEntry {
  /** The name it is served under (a config file's key; the descriptor's name by default). */
  name: string;
  descriptor: AnyPackDescriptor;
  /** Its options, checked against the descriptor's (default none). */
  options?: Record<string, unknown>;
  /** Its tools reshaped: a name prefix, scopes, tools hidden, renamed or re-described, arguments fixed or narrowed. */
  change?: PackChange;
  /** A database of its own (default: the one every other pack shares). */
  database?: PackDatabase;
}

/** The entry's pack over an opened store (undefined for a pack with no store), reshaped as its entry says. */
export function buildPack(entry: PackEntry, store: PackStore | undefined): Pack {
  const pack = entry.descriptor.pack({ store: store as PackStore, options: entry.options ?? {} });
  if (entry.change === undefined) return pack;
  try {
    return reshapePack(pack, entry.change);
  } catch (error) {
    if (!(error instanceof DefinitionError)) throw error;
    // A reshaped tool's problem is named by the tool's path in the change.
    const tool = /^Reshaped tool "([^"]+)"$/.exec(error.definition)?.[1];
    throw new PackConfigError(
      `pack "${entry.name}": ${tool === undefined ? "" : `tools.${tool}.`}${definitionProblem(error)}`,
    );
  }
}

/**
 * Each entry's store opened with `open` (none for a pack with no store), seeded when `demo`, and
 * its pack built over it (through `watch`, which readiness uses to hear of failed writes). Each
 * store's close goes to `closers`, so the caller closes what opened before a failure.
 */
export async function openEntries<K>(
  opening: readonly { entry: PackEntry; kind: K | undefined }[],
  open: (kind: K) => Promise<PackStore> | PackStore,
  closers: Array<() => Promise<void>>,
  options: { demo?: boolean; watch?: <T extends object>(store: T) => T },
): Promise<Pack[]> {
  const packs: Pack[] = [];
  for (const { entry, kind } of opening) {
    if (kind === undefined) {
      packs.push(buildPack(entry, undefined));
      continue;
    }
    const store = await open(kind);
    closers.push(async () => {
      await store.close();
    });
    if (options.demo) await entry.descriptor.seedDemo?.(store);
    packs.push(buildPack(entry, options.watch ? options.watch(store) : store));
  }
  return packs;
}

/** A DefinitionError's own words, without the definition it names and the rule. */
export function definitionProblem(error: DefinitionError): string {
  return error.message.slice(error.definition.length + 2).replace(/ \[[A-Z0-9]+\]$/, "");
}

/** The built-in packs' descriptors, by name. */
export const BUILT_IN_PACKS: Readonly<Record<PackName, AnyPackDescriptor>> = Object.freeze({ notes, tickets, crm });

/** Options a pack does not take: each problem with its option's path (`units`, `limits.max`). */
export class PackOptionsError extends PackConfigError {
  readonly problems: readonly { path: string; message: string }[];
  constructor(pack: string, problems: readonly { path: string; message: string }[]) {
    const lines = problems.map((p) => (p.path === "" ? p.message : `${p.path}: ${p.message}`));
    super(`pack "${pack}" options: ${lines.join("; ")}`);
    this.problems = problems;
  }
}

/** An entry's options checked against its descriptor's schema; a problem names each option and what works. */
export function checkedOptions(entry: PackEntry): Record<string, unknown> {
  const parsed = parseArguments(entry.descriptor.options as never, entry.options ?? {});
  if (parsed.success) return parsed.data as Record<string, unknown>;
  const known = Object.keys((entry.descriptor.optionsJsonSchema.properties as object | undefined) ?? {});
  const problems = parsed.issues.flatMap((issue) => {
    // A strict options object names unknown keys at its root: one problem per key, with what it takes.
    if (issue.path === "" && issue.message.startsWith("unknown key")) {
      return [...issue.message.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map(([, key = ""]) => {
        const meant = didYouMean(key, known);
        const takes = known.length === 0 ? "this pack takes no options" : `its options: ${known.join(", ")}`;
        const message = `unknown option; ${meant === undefined ? takes : `did you mean "${meant}"? ${takes[0]?.toUpperCase()}${takes.slice(1)}`}`;
        return { path: key, message };
      });
    }
    // The hints speak of a tool's arguments; these are a pack's options.
    return [
      {
        path: issue.path,
        message: issue.message.replace(/\barguments?\b/g, (w) => (w.endsWith("s") ? "options" : "option")),
      },
    ];
  });
  throw new PackOptionsError(entry.name, problems);
}

/** The pack's SQLite store kind, undefined for a pack with no store; one kept only on PostgreSQL is refused. */
export async function sqliteStoreOf(entry: PackEntry): Promise<SqlitePackStore<PackStore> | undefined> {
  const stores = entry.descriptor.stores;
  if (stores?.sqlite === undefined) {
    if (stores?.postgres === undefined) return undefined;
    throw new PackConfigError(
      `pack "${entry.name}" keeps its data only on PostgreSQL; give it a PostgreSQL database (--database-url postgres://…)`,
    );
  }
  return await stores.sqlite();
}

/** The pack's PostgreSQL store kind, undefined for a pack with no store; one kept only on SQLite is refused. */
export async function postgresStoreOf(entry: PackEntry): Promise<PostgresPackStore<PackStore> | undefined> {
  const stores = entry.descriptor.stores;
  if (stores?.postgres === undefined) {
    if (stores?.sqlite === undefined) return undefined;
    throw new PackConfigError(
      `pack "${entry.name}" keeps its data only on SQLite; give it a SQLite file instead of a PostgreSQL database`,
    );
  }
  return await stores.postgres();
}
