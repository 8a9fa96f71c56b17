import { openSqlite } from "@toolshed/storage";
import type { CreateKind } from "./load.js";

/** What a load run left in the SQLite file, read after the server has exited. */
export function readPersisted(db: string, run: string) {
  const sqlite = openSqlite(db, { readonly: true });
  try {
    const integrity = sqlite.prepare("PRAGMA integrity_check").pluck().all() as string[];
    const like = `load ${run} %`;
    const notes = sqlite.prepare("SELECT title FROM notes WHERE title LIKE ?").pluck().all(like) as string[];
    const tickets = (sqlite.prepare("SELECT num FROM tickets WHERE title LIKE ?").pluck().all(like) as number[]).map(
      (n) => `T-${n}`,
    );
    const accounts = sqlite.prepare("SELECT id FROM crm_accounts WHERE name LIKE ?").pluck().all(like) as string[];
    const titles = {
      note: new Set(notes),
      ticket: new Set(sqlite.prepare("SELECT title FROM tickets WHERE title LIKE ?").pluck().all(like) as string[]),
      account: new Set(sqlite.prepare("SELECT name FROM crm_accounts WHERE name LIKE ?").pluck().all(like) as string[]),
    } satisfies Record<CreateKind, Set<string>>;
    const keys = { note: new Set(notes), ticket: new Set(tickets), account: new Set(accounts) } satisfies Record<
      CreateKind,
      Set<string>
    >;
    return {
      integrity,
      keys,
      titles,
      counts: { note: notes.length, ticket: tickets.length, account: accounts.length },
    };
  } finally {
    sqlite.close();
  }
}
