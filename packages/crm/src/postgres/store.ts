import { randomBytes } from "node:crypto";
import { ConflictError, InvalidArgumentsError } from "@toolshed/errors";
import { checkIdempotencyRetention, decodeCursor, encodeCursor } from "@toolshed/storage";
import {
  openPostgresStore,
  type PgClient,
  PgCommonWords,
  type PgPool,
  type PostgresStoreConnection,
  type PostgresStoreOptions,
  runIdempotentPg,
  withPgTransaction,
} from "@toolshed/storage/postgres";
import { accountNameKey, normalizeAccountName } from "../names.js";
import { CRM_MIGRATION_SCOPE } from "../sqlite/migrations.js";
import { clampLimit } from "../sqlite/rows.js";
import type {
  Account,
  AccountPage,
  AccountRef,
  AccountSearch,
  AccountSearchPage,
  CreateAccountOptions,
  CrmStore,
  NewAccount,
  StoreCallOptions,
  Tier,
  TierUpdate,
} from "../store.js";
import { completeAccountIds, findCandidates } from "./candidates.js";
import { toStoreError } from "./errors.js";
import { CRM_PG_MIGRATIONS } from "./migrations.js";
import { ACCOUNT_COLUMNS, type AccountRow, toAccount, withoutNul } from "./rows.js";
import { searchAccounts } from "./search.js";

// The same scope as the SQLite store, so a stored key means the same request on either store.
const CREATE_SCOPE = "crm.create_account";

/** A create request as stored and fingerprinted: every field present, absent ones null. */
interface AccountInput {
  id: string | null;
  name: string;
  tier: Tier;
  arr: number;
  domain: string | null;
  notes: string | null;
}

function newAccountId(): string {
  return `acc_${randomBytes(6).toString("hex")}`;
}

export interface PostgresCrmStoreOptions extends PostgresStoreOptions {
  /** How long an idempotency key is remembered (default 24 hours; Infinity keeps keys forever). */
  idempotencyRetentionMs?: number;
}

/**
 * The CRM store on PostgreSQL (pg): weighted full-text search on a generated tsvector with a
 * GIN index, every write in one transaction, and unique constraints on ids, names and
 * idempotency keys, so any number of server instances can share one database.
 */
export class PostgresCrmStore implements CrmStore {
  readonly #pool: PgPool;
  readonly #release: () => Promise<void>;
  readonly #retentionMs: number;
  readonly #commonWords = new PgCommonWords({
    table: "crm_accounts",
    column: "search",
    vector: "to_tsvector('simple', crm_search_text(w.word))",
  });

  /** This store's tables, for checking a database's versions before any store opens it. */
  static readonly schema = { scope: CRM_MIGRATION_SCOPE, migrations: CRM_PG_MIGRATIONS };

  private constructor(connection: PostgresStoreConnection, retentionMs: number) {
    this.#pool = connection.pool;
    this.#release = connection.release;
    this.#retentionMs = retentionMs;
  }

  /**
   * Connects (a URL makes a pool that `close()` ends; a given pool stays the caller's) and brings
   * the tables to the latest version. Instances starting at once take turns on the migrations.
   */
  static async open(
    source: string | { pool: PgPool },
    options: PostgresCrmStoreOptions = {},
  ): Promise<PostgresCrmStore> {
    const retentionMs = checkIdempotencyRetention(options.idempotencyRetentionMs);
    const { idempotencyRetentionMs: _retention, ...connect } = options;
    try {
      const connection = await openPostgresStore(source, { ...connect, ...PostgresCrmStore.schema });
      return new PostgresCrmStore(connection, retentionMs);
    } catch (error) {
      throw toStoreError(error);
    }
  }

  async searchAccounts(search: AccountSearch, options?: StoreCallOptions): Promise<AccountSearchPage> {
    return this.#run(options, () => searchAccounts(this.#pool, search, this.#commonWords));
  }

  async getAccount(id: string, options?: StoreCallOptions): Promise<Account | undefined> {
    return this.#run(options, () => this.#get(this.#pool, id));
  }

  async listAccounts(page: { limit: number; cursor?: string }, options?: StoreCallOptions): Promise<AccountPage> {
    return this.#run(options, async () => {
      const limit = clampLimit(page.limit);
      const after = page.cursor === undefined ? null : (decodeCursor(page.cursor, { a: "string" }).a as string);
      const { rows } = await this.#pool.query<AccountRow>(
        `SELECT ${ACCOUNT_COLUMNS} FROM crm_accounts WHERE ($1::text IS NULL OR id > $1) ORDER BY id LIMIT $2`,
        [after === null ? null : withoutNul(after), limit + 1],
      );
      const accounts = rows.slice(0, limit).map(toAccount);
      const last = accounts.at(-1);
      return { accounts, nextCursor: rows.length > limit && last ? encodeCursor({ a: last.id }) : null };
    });
  }

  async createAccount(account: NewAccount, options?: CreateAccountOptions): Promise<Account> {
    return this.#run(options, async () => {
      const input: AccountInput = {
        id: account.id ?? null,
        name: normalizeAccountName(account.name),
        tier: account.tier,
        arr: account.arr,
        domain: account.domain ?? null,
        notes: account.notes ?? null,
      };
      rejectNul(input);
      const created = await withPgTransaction(this.#pool, (client) =>
        runIdempotentPg(client, { ...this.#keys(options), args: input }, () => this.#insert(client, input)),
      );
      // A repeated key answers from JSONB, whose key order differs: one shape for every answer.
      return toAccount(created);
    });
  }

  async updateTier(id: string, tier: Tier, options?: StoreCallOptions): Promise<TierUpdate> {
    return this.#run(options, () =>
      withPgTransaction(this.#pool, async (client): Promise<TierUpdate> => {
        const account = await this.#get(client, id, { forUpdate: true });
        if (!account) return { status: "not_found" };
        if (account.archived) return { status: "archived", account };
        if (account.tier === tier) return { status: "updated", account, previousTier: tier };
        const { rows } = await client.query<AccountRow>(
          `UPDATE crm_accounts SET tier = $2, updated_at = now() WHERE id = $1 RETURNING ${ACCOUNT_COLUMNS}`,
          [id, tier],
        );
        return { status: "updated", account: toAccount(rows[0] as AccountRow), previousTier: account.tier };
      }),
    );
  }

  async setArchived(id: string, archived: boolean, options?: StoreCallOptions): Promise<Account | undefined> {
    return this.#run(options, () =>
      withPgTransaction(this.#pool, async (client) => {
        const account = await this.#get(client, id, { forUpdate: true });
        if (!account || account.archived === archived) return account;
        const { rows } = await client.query<AccountRow>(
          `UPDATE crm_accounts SET archived = $2, updated_at = now() WHERE id = $1 RETURNING ${ACCOUNT_COLUMNS}`,
          [id, archived],
        );
        return toAccount(rows[0] as AccountRow);
      }),
    );
  }

  async findCandidates(text: string, limit: number, options?: StoreCallOptions): Promise<AccountRef[]> {
    return this.#run(options, () => findCandidates(this.#pool, text, clampLimit(limit, 250)));
  }

  async completeAccountIds(prefix: string, limit: number, options?: StoreCallOptions): Promise<string[]> {
    return this.#run(options, () => completeAccountIds(this.#pool, prefix, clampLimit(limit)));
  }

  /** Where a create's idempotency key is kept, and how long (the database's clock decides expiry). */
  #keys(options: CreateAccountOptions | undefined) {
    return { scope: CREATE_SCOPE, key: options?.idempotencyKey, retentionMs: this.#retentionMs };
  }

  /** Ends the pool when the store made it from a URL; a pool passed in stays open for its owner. */
  async close(): Promise<void> {
    await this.#release();
  }

  /**
   * Every call: fail fast when the caller already gave up, and report code-less connection
   * failures as `unavailable`. SQLSTATE errors (statement timeout, serialization failure,
   * deadlock) pass through unchanged for classifyError.
   */
  async #run<T>(options: StoreCallOptions | undefined, fn: () => Promise<T>): Promise<T> {
    options?.signal?.throwIfAborted();
    try {
      return await fn();
    } catch (error) {
      throw toStoreError(error);
    }
  }

  async #get(db: PgPool | PgClient, id: string, lock: { forUpdate?: boolean } = {}): Promise<Account | undefined> {
    if (id.includes("\u0000")) return undefined;
    const { rows } = await db.query<AccountRow>(
      `SELECT ${ACCOUNT_COLUMNS} FROM crm_accounts WHERE id = $1${lock.forUpdate ? " FOR UPDATE" : ""}`,
      [id],
    );
    return rows[0] ? toAccount(rows[0]) : undefined;
  }

  /**
   * Runs inside the caller's transaction. The unique constraints decide races between
   * instances: ON CONFLICT waits for the other writer, and the lookup after it names the winner.
   */
  async #insert(client: PgClient, input: AccountInput): Promise<Account> {
    const nameKey = accountNameKey(input.name);
    const id = input.id ?? newAccountId();
    const inserted = await client.query<AccountRow>(
      `INSERT INTO crm_accounts (id, name, name_key, tier, arr, domain, notes)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING RETURNING ${ACCOUNT_COLUMNS}`,
      [id, input.name, nameKey, input.tier, input.arr, input.domain, input.notes],
    );
    if (inserted.rows[0]) return toAccount(inserted.rows[0]);
    const sameName = (
      await client.query<AccountRef>("SELECT id, name FROM crm_accounts WHERE name_key = $1", [nameKey])
    ).rows[0];
    if (sameName) {
      throw new ConflictError(
        `An account named '${input.name}' already exists: ${sameName.id} (${sameName.name}). Names are unique ignoring case; use that account or choose another name`,
      );
    }
    const sameId = await this.#get(client, id);
    if (sameId) {
      throw new ConflictError(
        `Account id '${id}' is already taken by ${sameId.name}; leave the id out to get a new one`,
      );
    }
    // The conflicting writer rolled back between our insert and the lookups: a safe retry.
    throw new ConflictError("another request changed this account at the same time; try again", {
      retryable: true,
    });
  }
}

function rejectNul(input: AccountInput): void {
  for (const field of ["id", "name", "domain", "notes"] as const) {
    if (input[field]?.includes("\u0000")) {
      throw new InvalidArgumentsError(`${field} must not contain NUL characters; remove them and try again`, [
        { path: field, message: "must not contain NUL (\\u0000) characters" },
      ]);
    }
  }
}
