import type { Account, Tier } from "../store.js";

const COLUMN_NAMES = ["id", "name", "tier", "arr", "domain", "notes", "archived", "created_at", "updated_at"];

/** Columns of `crm_accounts` that make an {@link Account}, for a SELECT list, optionally of a table alias. */
export function accountColumns(alias?: string): string {
  return COLUMN_NAMES.map((c) => (alias ? `${alias}.${c}` : c)).join(", ");
}

export const ACCOUNT_COLUMNS = accountColumns();

export interface AccountRow {
  id: string;
  name: string;
  tier: string;
  arr: number;
  domain: string | null;
  notes: string | null;
  archived: number;
  created_at: string;
  updated_at: string;
}

export function toAccount(row: AccountRow): Account {
  return {
    id: row.id,
    name: row.name,
    tier: row.tier as Tier,
    arr: row.arr,
    domain: row.domain,
    notes: row.notes,
    archived: row.archived === 1,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** Upper bound of a range that holds every string starting with `prefix` (TEXT compares bytewise). */
export function prefixEnd(prefix: string): string {
  return `${prefix}\u{10FFFF}`;
}

export function clampLimit(limit: number, max = 100): number {
  return Number.isFinite(limit) ? Math.min(max, Math.max(1, Math.floor(limit))) : max;
}
