import { z } from "zod";
import { checkName } from "./checks.js";
import { DefinitionError } from "./definition-error.js";
import type { Pack } from "./pack.js";

/** A store's tables: its migration scope and migrations, checked before anything is written. */
export interface PackStoreSchema {
  scope: string;
  migrations: readonly { version: number }[];
}

/** How a server opens a pack's store. */
export interface PackStoreOptions {
  /** Open without writing: no migrations (the tables must be current) and no writes. */
  readonly: boolean;
  /** How long idempotency keys are remembered, when the store keeps them. */
  idempotencyRetentionMs?: number;
}

/** Anything a pack keeps its data in; closed by the server that opened it. */
export interface PackStore {
  close(): Promise<void> | void;
}

/** A pack's store on SQLite: a file (created with its folders) or `:memory:`. */
export interface SqlitePackStore<S extends PackStore> {
  schema: PackStoreSchema;
  open(path: string, options: PackStoreOptions & { driver?: "node" | "better-sqlite3" }): S | Promise<S>;
}

/** A pack's store on PostgreSQL, on a pool the server owns (a `pg` Pool). */
export interface PostgresPackStore<S extends PackStore> {
  schema: PackStoreSchema;
  open(pool: unknown, options: PackStoreOptions): Promise<S>;
}

/** What a pack's descriptor is written with (see {@link definePackDescriptor}). */
export interface PackDescriptorConfig<S extends PackStore, O extends Record<string, unknown>> {
  /** The pack's name: tool names' owner in errors, its default entry name in a config file. */
  name: string;
  /** The package's version. */
  version: string;
  /** One line on what the pack is for, shown by `--check-config`. */
  description: string;
  /**
   * The options a config file may give the pack (a Zod object; every property described). They
   * are checked before anything starts; the JSON Schema of them is `optionsJsonSchema`.
   */
  options?: z.ZodType<O>;
  /**
   * The stores it can open, each loaded only when used (so a pack on SQLite never loads `pg`).
   * A pack with no store (one that calls an API) leaves this out.
   */
  stores?: {
    sqlite?: () => Promise<SqlitePackStore<S>> | SqlitePackStore<S>;
    postgres?: () => Promise<PostgresPackStore<S>> | PostgresPackStore<S>;
  };
  /** Writes demo data into an opened store, once (a second call adds nothing). */
  seedDemo?: (store: S) => Promise<unknown>;
  /** The pack over an opened store (undefined for a pack with no store) and its checked options. */
  pack: (context: { store: S; options: O }) => Pack;
}

/**
 * A pack's entry point: a package exports it as `toolshedPack` (from its main entry), and a
 * server opens its store and mounts it from a config file, with no code.
 */
export interface PackDescriptor<
  S extends PackStore = PackStore,
  O extends Record<string, unknown> = Record<string, unknown>,
> extends Readonly<PackDescriptorConfig<S, O>> {
  readonly kind: "packDescriptor";
  /** The JSON Schema of the options (an object with no properties when it takes none). */
  readonly optionsJsonSchema: Record<string, unknown>;
}

/** A descriptor of any store and options types, as a server holds many. */
// biome-ignore lint/suspicious/noExplicitAny: erased generic parameters
export type AnyPackDescriptor = PackDescriptor<any, any>;

const NO_OPTIONS = z.object({}).strict();

/** Checks a pack's descriptor when it is made (C13), and works out the JSON Schema of its options. */
export function definePackDescriptor<S extends PackStore, O extends Record<string, unknown> = Record<string, never>>(
  config: PackDescriptorConfig<S, O>,
): PackDescriptor<S, O> {
  const label = `Pack descriptor "${String(config.name)}"`;
  checkName(label, config.name);
  if (typeof config.version !== "string" || !/^\d+\.\d+\.\d+/.test(config.version)) {
    throw new DefinitionError(label, "C13", `version must be the package's semver version, such as "1.2.0"`);
  }
  if (typeof config.description !== "string" || config.description.trim() === "") {
    throw new DefinitionError(label, "C13", "description must say in one line what the pack is for");
  }
  if (typeof config.pack !== "function") {
    throw new DefinitionError(label, "C13", "pack must be a function ({ store, options }) => definePack(…)");
  }
  for (const [kind, load] of Object.entries(config.stores ?? {})) {
    if (load !== undefined && typeof load !== "function") {
      throw new DefinitionError(
        label,
        "C13",
        `stores.${kind} must be a function returning { schema, open }, such as () => ({ schema: MyStore.schema, open: MyStore.open })`,
      );
    }
  }
  const options = config.options ?? NO_OPTIONS;
  let optionsJsonSchema: Record<string, unknown>;
  try {
    optionsJsonSchema = z.toJSONSchema(options as z.ZodType, { io: "input", unrepresentable: "throw" }) as Record<
      string,
      unknown
    >;
  } catch (error) {
    throw new DefinitionError(
      label,
      "C13",
      `options must be a Zod object JSON Schema can describe: ${(error as Error).message}`,
    );
  }
  if (optionsJsonSchema.type !== "object") {
    throw new DefinitionError(label, "C13", "options must be a Zod object, such as z.object({ timeoutMs: … })");
  }
  delete optionsJsonSchema.$schema;
  return Object.freeze({
    ...config,
    kind: "packDescriptor" as const,
    options: options as z.ZodType<O>,
    optionsJsonSchema,
  });
}

/** Whether a value is a pack descriptor (from any copy of this package). */
export function isPackDescriptor(value: unknown): value is AnyPackDescriptor {
  const candidate = value as Partial<PackDescriptor> | null;
  return (
    typeof candidate === "object" &&
    candidate !== null &&
    candidate.kind === "packDescriptor" &&
    typeof candidate.name === "string" &&
    typeof candidate.pack === "function"
  );
}
