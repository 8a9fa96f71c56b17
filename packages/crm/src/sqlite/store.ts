import { randomBytes } from "node:crypto";
import { ConflictError } from "@toolshed/errors";
import {
  checkIdempotencyRetention,
  decodeCursor,
  encodeCursor,
  openSqliteStore,
  runIdempotent,
  type SqliteDatabase,
  type SqliteDriverChoice,
} from "@toolshed/storage";
import { accountNameKey, normalizeAccountName } from "../names.js";
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
import { CRM_MIGRATION_SCOPE, CRM_SQLITE_MIGRATIONS } from "./migrations.js";
import { ACCOUNT_COLUMNS, type AccountRow, clampLimit, toAccount } from "./rows.js";
import { searchAccounts } from "./search.js";
import { prepare } from "./statements.js";

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

export interface SqliteCrmStoreOptions {
  /** How long a write waits for another connection's lock before a retryable busy error (default 5000 ms). */
  busyTimeoutMs?: number;
  /**
   * Open an existing file without writing to it (no WAL switch, no migrations; its tables must be
   * current). Writes fail with a `failed_precondition` tool error.
   */
  readonly?: boolean;
  /** How long an idempotency key is remembered (default 24 hours; Infinity keeps keys forever). */
  idempotencyRetentionMs?: number;
  /** Which SQLite driver opens the file (default `auto`: node:sqlite on Node 22.16 or later, else better-sqlite3). */
  driver?: SqliteDriverChoice;
}

/**
 * The CRM store on SQLite (node:sqlite or better-sqlite3): WAL, FTS5 search, every write in one IMMEDIATE
 * transaction, so several processes can share one file.
 */
export class SqliteCrmStore implements CrmStore {
  readonly #db: SqliteDatabase;
  readonly #retentionMs: number;
  #closed = false;

  /** This store's tables, for checking a database's versions before any store opens it. */
  static readonly schema = { scope: CRM_MIGRATION_SCOPE, migrations: CRM_SQLITE_MIGRATIONS };

  private constructor(db: SqliteDatabase, retentionMs: number) {
    this.#db = db;
    this.#retentionMs = retentionMs;
  }

  /**
   * Opens (creating or upgrading in place) a database file, or `:memory:`. A file from a newer
   * release is refused before anything is written to it.
   */
  static open(path: string, options: SqliteCrmStoreOptions = {}): SqliteCrmStore {
    const retentionMs = checkIdempotencyRetention(options.idempotencyRetentionMs);
    const db = openSqliteStore(path, {
      schema: SqliteCrmStore.schema,
      ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }),
      readonly: options.readonly ?? false,
      ...(options.driver === undefined ? {} : { driver: options.driver }),
    });
    return new SqliteCrmStore(db, retentionMs);
  }

  async searchAccounts(search: AccountSearch, options?: StoreCallOptions): Promise<AccountSearchPage> {
    options?.signal?.throwIfAborted();
    return searchAccounts(this.#db, search);
  }

  async getAccount(id: string, options?: StoreCallOptions): Promise<Account | undefined> {
    options?.signal?.throwIfAborted();
    return this.#get(id);
  }

  async listAccounts(page: { limit: number; cursor?: string }, options?: StoreCallOptions): Promise<AccountPage> {
    options?.signal?.throwIfAborted();
    const limit = clampLimit(page.limit);
    const after = page.cursor === undefined ? null : (decodeCursor(page.cursor, { a: "string" }).a as string);
    const rows = prepare(
      this.#db,
      `SELECT ${ACCOUNT_COLUMNS} FROM crm_accounts WHERE (? IS NULL OR id > ?) ORDER BY id LIMIT ?`,
    ).all(after, after, limit + 1) as AccountRow[];
    const accounts = rows.slice(0, limit).map(toAccount);
    const last = accounts.at(-1);
    return { accounts, nextCursor: rows.length > limit && last ? encodeCursor({ a: last.id }) : null };
  }

  async createAccount(account: NewAccount, options?: CreateAccountOptions): Promise<Account> {
    options?.signal?.throwIfAborted();
    const input: AccountInput = {
      id: account.id ?? null,
      name: normalizeAccountName(account.name),
      tier: account.tier,
      arr: account.arr,
      domain: account.domain ?? null,
      notes: account.notes ?? null,
    };
    const request = { scope: CREATE_SCOPE, key: options?.idempotencyKey, retentionMs: this.#retentionMs };
    return runIdempotent(this.#db, { ...request, args: input }, () => this.#insert(input));
  }

  async updateTier(id: string, tier: Tier, options?: StoreCallOptions): Promise<TierUpdate> {
    options?.signal?.throwIfAborted();
    return this.#db
      .transaction((): TierUpdate => {
        const account = this.#get(id);
        if (!account) return { status: "not_found" };
        if (account.archived) return { status: "archived", account };
        if (account.tier === tier) return { status: "updated", account, previousTier: tier };
        prepare(this.#db, "UPDATE crm_accounts SET tier = ?, updated_at = ? WHERE id = ?").run(
          tier,
          new Date().toISOString(),
          id,
        );
        return { status: "updated", account: this.#get(id) as Account, previousTier: account.tier };
      })
      .immediate();
  }

  async setArchived(id: string, archived: boolean, options?: StoreCallOptions): Promise<Account | undefined> {
    options?.signal?.throwIfAborted();
    return this.#db
      .transaction(() => {
        const account = this.#get(id);
        if (!account || account.archived === archived) return account;
        prepare(this.#db, "UPDATE crm_accounts SET archived = ?, updated_at = ? WHERE id = ?").run(
          archived ? 1 : 0,
          new Date().toISOString(),
          id,
        );
        return this.#get(id);
      })
      .immediate();
  }

  async findCandidates(text: string, limit: number, options?: StoreCallOptions): Promise<AccountRef[]> {
    options?.signal?.throwIfAborted();
    return findCandidates(this.#db, text, clampLimit(limit, 250));
  }

  async completeAccountIds(prefix: string, limit: number, options?: StoreCallOptions): Promise<string[]> {
    options?.signal?.throwIfAborted();
    return completeAccountIds(this.#db, prefix, clampLimit(limit));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#db.close();
  }

  #get(id: string): Account | undefined {
    const row = prepare(this.#db, `SELECT ${ACCOUNT_COLUMNS} FROM crm_accounts WHERE id = ?`).get(id) as
      | AccountRow
      | undefined;
    return row ? toAccount(row) : undefined;
  }

  /** Runs inside the caller's transaction, so the uniqueness checks and the insert are one step. */
  #insert(input: AccountInput): Account {
    const nameKey = accountNameKey(input.name);
    const sameName = prepare(this.#db, "SELECT id, name FROM crm_accounts WHERE name_key = ?").get(nameKey) as
      | AccountRef
      | undefined;
    if (sameName) {
      throw new ConflictError(
        `An account named '${input.name}' already exists: ${sameName.id} (${sameName.name}). Names are unique ignoring case; use that account or choose another name`,
      );
    }
    const id = input.id ?? newAccountId();
    const sameId = this.#get(id);
    if (sameId) {
      throw new ConflictError(
        `Account id '${id}' is already taken by ${sameId.name}; leave the id out to get a new one`,
      );
    }
    const now = new Date().toISOString();
    prepare(
      this.#db,
      `INSERT INTO crm_accounts (id, name, name_key, tier, arr, domain, notes, archived, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?)`,
    ).run(id, input.name, nameKey, input.tier, input.arr, input.domain, input.notes, now, now);
    return this.#get(id) as Account;
  }
}
