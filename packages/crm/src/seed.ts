import { isToolError } from "@toolshed/errors";
import type { CrmBackend } from "./backend.js";
import { DEMO_ACCOUNTS } from "./demo-accounts.js";

export interface SeedResult {
  /** Demo accounts added by this call. */
  created: number;
  /** Demo accounts that were already there (or whose name another account has). */
  skipped: number;
}

/** Fills a backend with a few dozen realistic accounts, three of them archived. Safe to call again. */
export async function seedDemo(backend: CrmBackend): Promise<SeedResult> {
  let created = 0;
  let skipped = 0;
  for (const { archived, ...account } of DEMO_ACCOUNTS) {
    if (await backend.getAccount(account.id)) {
      skipped++;
      continue;
    }
    try {
      await backend.createAccount(account);
      created++;
    } catch (error) {
      // Another seeder won the race, or someone already has this name: leave theirs alone.
      if (isToolError(error) && error.code === "conflict") {
        skipped++;
        continue;
      }
      throw error;
    }
    if (archived) await backend.setArchived(account.id, true);
  }
  return { created, skipped };
}
