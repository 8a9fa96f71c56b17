import { closestMatches, NotFoundError } from "@toolshed/errors";
import type { StoreCaller } from "./call-store.js";
import type { AccountRef, CrmStore, StoreCallOptions } from "./store.js";

const CANDIDATES = 200;
const SHOWN = 5;

/** "No account 'acc_1O05'. Closest accounts: acc_1005 (Initech), …", from a bounded candidate set. */
export function accountNotFoundMessage(id: string, candidates: readonly AccountRef[]): string {
  if (candidates.length === 0) return `No account '${id}'; the CRM has no accounts yet`;
  const byLabel = new Map<string, AccountRef>();
  for (const c of candidates) {
    byLabel.set(c.id, c);
    if (!byLabel.has(c.name)) byLabel.set(c.name, c);
  }
  const closest = new Map<string, AccountRef>();
  for (const label of closestMatches(id, byLabel.keys(), SHOWN * 2)) {
    const account = byLabel.get(label);
    if (account && closest.size < SHOWN) closest.set(account.id, account);
  }
  const list = [...closest.values()].map((a) => `${a.id} (${a.name})`).join(", ");
  return `No account '${id}'. Closest accounts: ${list}; crm_search_accounts finds accounts by name`;
}

/** Looks up the closest accounts (through the same deadline) and builds the not-found error. */
export async function accountNotFound(
  store: CrmStore,
  call: StoreCaller,
  id: string,
  signal: AbortSignal | undefined,
): Promise<NotFoundError> {
  const candidates = await call(signal, (s) =>
    store.findCandidates(id, CANDIDATES, { signal: s } satisfies StoreCallOptions),
  );
  return new NotFoundError(accountNotFoundMessage(id, candidates));
}
