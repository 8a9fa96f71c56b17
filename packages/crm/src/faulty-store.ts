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
} from "./store.js";

/** The store methods a fault can hit (all but `close`). */
export type CrmStoreMethod = Exclude<keyof CrmStore, "close">;

/** One call as the fault rules see it. */
export interface StoreCall {
  method: CrmStoreMethod;
  args: readonly unknown[];
}

/** Applies to every call (`true`) or to the calls a predicate picks. */
export type FaultRule = boolean | ((call: StoreCall) => boolean);

export interface FaultOptions {
  /** Delay before each call answers; aborted with the call's signal. */
  latencyMs?: number | ((call: StoreCall) => number);
  /** Never answers; only the call's signal ends the wait (a call without a signal waits forever). */
  hang?: FaultRule;
  /** Fails like a dropped connection (`ECONNRESET`). */
  unavailable?: FaultRule;
  /** Fails with this error (for instance one whose message must never reach a client). */
  throwError?: Error | ((call: StoreCall) => Error | undefined);
}

function applies(rule: FaultRule | undefined, call: StoreCall): boolean {
  return typeof rule === "function" ? rule(call) : rule === true;
}

function waitFor(ms: number | undefined, signal: AbortSignal | undefined, onAbort: () => void): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      onAbort();
      reject(signal.reason);
      return;
    }
    const timer = ms === undefined ? undefined : setTimeout(done, ms);
    function done() {
      signal?.removeEventListener("abort", aborted);
      resolve();
    }
    function aborted() {
      if (timer) clearTimeout(timer);
      onAbort();
      reject(signal?.reason);
    }
    signal?.addEventListener("abort", aborted, { once: true });
  });
}

/**
 * Wraps a store and injects latency, hangs, connection resets and arbitrary errors, to test
 * how tools behave when the store misbehaves. Faults can be changed between calls.
 */
export class FaultyCrmStore implements CrmStore {
  readonly inner: CrmStore;
  faults: FaultOptions;
  /** Every call made, in order. */
  readonly calls: StoreCall[] = [];
  /** How many delayed or hanging calls their signal aborted. */
  abortedCalls = 0;

  constructor(inner: CrmStore, faults: FaultOptions = {}) {
    this.inner = inner;
    this.faults = faults;
  }

  async #run<T>(
    method: CrmStoreMethod,
    args: readonly unknown[],
    signal: AbortSignal | undefined,
    answer: () => Promise<T>,
  ): Promise<T> {
    const call: StoreCall = { method, args };
    this.calls.push(call);
    const { latencyMs, hang, unavailable, throwError } = this.faults;
    const onAbort = () => {
      this.abortedCalls++;
    };
    const delay = typeof latencyMs === "function" ? latencyMs(call) : latencyMs;
    if (delay !== undefined && delay > 0) await waitFor(delay, signal, onAbort);
    if (applies(hang, call)) await waitFor(undefined, signal, onAbort);
    if (applies(unavailable, call)) {
      throw Object.assign(new Error(`read ECONNRESET (crm store, ${method})`), {
        code: "ECONNRESET",
        errno: -104,
        syscall: "read",
      });
    }
    const error = typeof throwError === "function" ? throwError(call) : throwError;
    if (error) throw error;
    return answer();
  }

  searchAccounts(search: AccountSearch, options?: StoreCallOptions): Promise<AccountSearchPage> {
    return this.#run("searchAccounts", [search], options?.signal, () => this.inner.searchAccounts(search, options));
  }

  getAccount(id: string, options?: StoreCallOptions): Promise<Account | undefined> {
    return this.#run("getAccount", [id], options?.signal, () => this.inner.getAccount(id, options));
  }

  listAccounts(page: { limit: number; cursor?: string }, options?: StoreCallOptions): Promise<AccountPage> {
    return this.#run("listAccounts", [page], options?.signal, () => this.inner.listAccounts(page, options));
  }

  createAccount(account: NewAccount, options?: CreateAccountOptions): Promise<Account> {
    return this.#run("createAccount", [account], options?.signal, () => this.inner.createAccount(account, options));
  }

  updateTier(id: string, tier: Tier, options?: StoreCallOptions): Promise<TierUpdate> {
    return this.#run("updateTier", [id, tier], options?.signal, () => this.inner.updateTier(id, tier, options));
  }

  setArchived(id: string, archived: boolean, options?: StoreCallOptions): Promise<Account | undefined> {
    return this.#run("setArchived", [id, archived], options?.signal, () =>
      this.inner.setArchived(id, archived, options),
    );
  }

  findCandidates(text: string, limit: number, options?: StoreCallOptions): Promise<AccountRef[]> {
    return this.#run("findCandidates", [text, limit], options?.signal, () =>
      this.inner.findCandidates(text, limit, options),
    );
  }

  completeAccountIds(prefix: string, limit: number, options?: StoreCallOptions): Promise<string[]> {
    return this.#run("completeAccountIds", [prefix, limit], options?.signal, () =>
      this.inner.completeAccountIds(prefix, limit, options),
    );
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** `new FaultyCrmStore(store, faults)`. */
export function withFaults(store: CrmStore, faults: FaultOptions = {}): FaultyCrmStore {
  return new FaultyCrmStore(store, faults);
}
