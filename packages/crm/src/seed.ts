import { isToolError } from "@toolshed/errors";
import { DEMO_ACCOUNTS } from "./demo-accounts.js";
import type { CrmStore } from "./store.js";

export interface SeedResult {
  /** Demo accounts added by this call. */
  created: number;
  /** Demo accounts that were already there (or whose name another account has). */
  skipped: number;
}

/** Fills a store with a few dozen realistic accounts, three of them archived. Safe to call again. */
export async function seedDemo(store: CrmStore): Promise<SeedResult> {
  let created = 0;
  let skipped = 0;
  for (const { archived, ...account } of DEMO_ACCOUNTS) {
    if (await store.getAccount(account.id)) {
      skipped++;
      continue;
    }
    try {
      await store.createAccount(account);
      created++;
    } catch (error) {
      // Another seeder won the race, or someone already has this name: leave theirs alone.
      if (isToolError(error) && error.code === "conflict") {
        skipped++;
        continue;
      }
      throw error;
    }
    if (archived) await store.setArchived(account.id, true);
  }
  return { created, skipped };
}
