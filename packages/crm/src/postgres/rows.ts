import type { Account, Tier } from "../store.js";

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

/** Columns of `crm_accounts` that make an {@link Account}; timestamps as ISO 8601 UTC, like SQLite's. */
export function accountColumns(alias?: string): string {
  const c = (name: string) => (alias ? `${alias}.${name}` : name);
  return [
    ...["id", "name", "tier", "arr", "domain", "notes", "archived"].map(c),
    `to_char(${c("created_at")} AT TIME ZONE 'UTC', ${ISO}) AS created_at`,
    `to_char(${c("updated_at")} AT TIME ZONE 'UTC', ${ISO}) AS updated_at`,
  ].join(", ");
}

export const ACCOUNT_COLUMNS = accountColumns();

export interface AccountRow {
  id: string;
  name: string;
  tier: string;
  arr: number;
  domain: string | null;
  notes: string | null;
  archived: boolean;
  created_at: string;
  updated_at: string;
}

/**
 * An account with its keys in one fixed order, whether it came from a row or from JSONB (which
 * reorders keys): callers compare answers by their JSON.
 */
export function toAccount(row: AccountRow | Account): Account {
  return {
    id: row.id,
    name: row.name,
    tier: row.tier as Tier,
    arr: Number(row.arr),
    domain: row.domain,
    notes: row.notes,
    archived: row.archived === true,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** PostgreSQL text cannot hold NUL; no stored id or name contains one. */
export function withoutNul(text: string): string {
  return text.replaceAll("\u0000", "");
}
