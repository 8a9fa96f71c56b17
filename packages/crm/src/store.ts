/** Account tiers, smallest first. */
export const TIERS = ["startup", "growth", "enterprise"] as const;

export type Tier = (typeof TIERS)[number];

/** One CRM account as every store returns it. */
export interface Account {
  id: string;
  name: string;
  tier: Tier;
  /** Annual recurring revenue in US dollars. */
  arr: number;
  domain: string | null;
  notes: string | null;
  /** Archived accounts are kept for history and cannot change tier. */
  archived: boolean;
  /** ISO 8601 timestamps. */
  created_at: string;
  updated_at: string;
}

/** The least a hint needs to name an account. */
export interface AccountRef {
  id: string;
  name: string;
}

/** Passed to every store call: aborted when the caller stops waiting (timeout, cancellation). */
export interface StoreCallOptions {
  signal?: AbortSignal;
}

export interface AccountSearch {
  /** What the user typed; a store must treat any text as words, never as query syntax. */
  text: string;
  tier?: Tier;
  minArr: number;
  maxArr?: number;
  limit: number;
  /** `nextCursor` of the previous page of the same search. */
  cursor?: string;
}

export interface AccountSearchHit {
  account: Account;
  /** Matching text with the matched words in [brackets]. */
  snippet: string;
}

export interface AccountSearchPage {
  /** Best match first. */
  hits: AccountSearchHit[];
  /** Opaque; null on the last page. */
  nextCursor: string | null;
}

export interface AccountPage {
  /** Ordered by id. */
  accounts: Account[];
  nextCursor: string | null;
}

export interface NewAccount {
  name: string;
  tier: Tier;
  arr: number;
  domain?: string | null;
  notes?: string | null;
  /** A fixed id (imports, demo data); a new one is made when absent. */
  id?: string;
}

export interface CreateAccountOptions extends StoreCallOptions {
  /** The same key with the same account returns the first result and writes nothing. */
  idempotencyKey?: string;
}

/** What happened to one account of a tier change; domain outcomes are values, not exceptions. */
export type TierUpdate =
  | { status: "updated"; account: Account; previousTier: Tier }
  | { status: "archived"; account: Account }
  | { status: "not_found" };

/**
 * Where the CRM pack keeps accounts. Every method is async and free of driver types, so an
 * SQLite, PostgreSQL or HTTP implementation fits without changing a tool. Failures are
 * @toolshed/errors classes (ConflictError, InvalidArgumentsError) or driver errors left for
 * classifyError (busy databases and lost connections are retryable).
 */
export interface CrmStore {
  /** Full-text search over name, domain and notes, ranked, keyset-paginated. */
  searchAccounts(search: AccountSearch, options?: StoreCallOptions): Promise<AccountSearchPage>;
  getAccount(id: string, options?: StoreCallOptions): Promise<Account | undefined>;
  /** Accounts by id; `limit` is capped at 100. Throws InvalidArgumentsError for a bad cursor. */
  listAccounts(page: { limit: number; cursor?: string }, options?: StoreCallOptions): Promise<AccountPage>;
  /** Throws ConflictError when the name (ignoring case) or the id is taken, or the key was used otherwise. */
  createAccount(account: NewAccount, options?: CreateAccountOptions): Promise<Account>;
  /** Changes one account's tier in its own transaction. */
  updateTier(id: string, tier: Tier, options?: StoreCallOptions): Promise<TierUpdate>;
  /** Returns undefined when there is no such account. */
  setArchived(id: string, archived: boolean, options?: StoreCallOptions): Promise<Account | undefined>;
  /**
   * A bounded set (at most `limit`) of accounts whose id or name is near `text`, for "closest
   * match" hints; never a scan of every account.
   */
  findCandidates(text: string, limit: number, options?: StoreCallOptions): Promise<AccountRef[]>;
  /** Ids that start with `prefix`, or of accounts whose name does; at most `limit`. */
  completeAccountIds(prefix: string, limit: number, options?: StoreCallOptions): Promise<string[]>;
  close(): Promise<void>;
}
