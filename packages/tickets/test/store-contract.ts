import { ConflictError, InvalidArgumentsError, NotFoundError } from "@toolshed/errors";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { TicketsStore } from "../src/index.js";
import { sleep } from "./helpers.js";

export type MakeTicketsStore = () => Promise<{ store: TicketsStore; cleanup: () => Promise<void> | void }>;

// Queries that are FTS5 syntax, broken syntax or no words at all; each must be plain text.
export const NASTY_QUERIES: readonly string[] = [
  "",
  "   ",
  '"',
  '"unbalanced',
  "password*",
  "*",
  "-password",
  "NOT password",
  "password AND",
  "OR",
  "AND OR NOT",
  "NEAR(password reset, 2)",
  "NEAR",
  "(password",
  "password)",
  "title:password",
  "body:*",
  "{title body}: reset",
  "^password",
  "pass + word",
  "'; DROP TABLE tickets; --",
  "🔥🔥🔥",
  "password 🔑",
  "\u0000",
  "x".repeat(5000),
  "a b c d e f g h i j k l m n o p q r s t u v w x y z",
  "%_\\",
  "ÅNGSTRÖM",
];
/**
 * The behaviour every TicketsStore implementation must have. Run it with a factory that gives a
 * fresh, empty store each time.
 */
export function describeTicketsStoreContract(label: string, makeStore: MakeTicketsStore): void {
  describe(`TicketsStore contract: ${label}`, () => {
    let store: TicketsStore;
    let cleanup: () => Promise<void> | void;

    beforeEach(async () => {
      ({ store, cleanup } = await makeStore());
    });
    afterEach(async () => {
      await store.close();
      await cleanup();
    });

    const create = (
      title: string,
      body = `Body of ${title}`,
      priority: "low" | "normal" | "high" | "urgent" = "normal",
    ) => store.createTicket({ title, body, priority });

    it("creates tickets with increasing readable ids from T-1001, open and without resolution", async () => {
      const first = await create("Login fails", "Cannot log in", "high");
      const second = await create("Export slow");
      expect(first.ticket).toMatchObject({
        id: "T-1001",
        title: "Login fails",
        body: "Cannot log in",
        status: "open",
        priority: "high",
        resolution: null,
      });
      expect(first.ticket.created_at).toBe(first.ticket.updated_at);
      expect(Number.isNaN(Date.parse(first.ticket.created_at))).toBe(false);
      expect(second.ticket.id).toBe("T-1002");
    });

    it("gets a ticket with no comments", async () => {
      const { ticket } = await create("Login fails", "Cannot log in");
      expect(await store.getTicket("T-1001")).toEqual({
        ...ticket,
        comment_count: 0,
        comments: [],
        next_comments_cursor: null,
      });
    });

    it("names the closest existing ids for an unknown id, and says when there are no tickets", async () => {
      await expect(store.getTicket("T-1001")).rejects.toThrow(
        new NotFoundError("No ticket 'T-1001'. There are no tickets yet"),
      );
      for (let i = 0; i < 12; i++) await create(`Ticket ${i}`);
      const missing = store.getTicket("T-10011");
      await expect(missing).rejects.toBeInstanceOf(NotFoundError);
      await expect(missing).rejects.toThrow("No ticket 'T-10011'. Closest ids: T-1001, T-1011, T-1003");
      await expect(store.getTicket("T-2001")).rejects.toThrow(
        "No ticket 'T-2001'. Closest ids: T-1001, T-1003, T-1004",
      );
      await expect(store.updateTicketStatus("T-999", { status: "open" })).rejects.toThrow(
        "No ticket 'T-999'. Closest ids: T-1009, T-1001, T-1002",
      );
      await expect(store.addComment("T-1013", "hello")).rejects.toThrow(
        "No ticket 'T-1013'. Closest ids: T-1003, T-1010, T-1011",
      );
    });

    it("treats a malformed id as unknown, not as a crash", async () => {
      await create("Only one");
      await expect(store.getTicket("1001")).rejects.toThrow("No ticket '1001'. Closest ids: T-1001");
    });

    describe("search", () => {
      beforeEach(async () => {
        await create("Login fails after password reset", "The new password is rejected.", "high");
        await create("Invoice currency wrong", "Invoices show USD. The password field is unrelated.");
        await create("Dark mode sidebar", "Links are unreadable in dark mode.", "low");
        await store.updateTicketStatus("T-1003", { status: "closed", resolution: "New palette" });
      });

      it("ranks title matches above body matches and returns summaries with snippets", async () => {
        const hits = await store.searchTickets({ text: "password", status: "open", limit: 10 });
        expect(hits.map((h) => h.id)).toEqual(["T-1001", "T-1002"]);
        expect(hits[0]).toMatchObject({ title: "Login fails after password reset", status: "open", priority: "high" });
        expect(Object.keys(hits[0] ?? {}).sort()).toEqual([
          "id",
          "priority",
          "snippet",
          "status",
          "title",
          "updated_at",
        ]);
        expect(hits[1]?.snippet).toContain("**password**");
      });

      it("matches every word, as prefixes, case- and accent-insensitively", async () => {
        expect((await store.searchTickets({ text: "PASS reset", status: "any", limit: 10 })).map((h) => h.id)).toEqual([
          "T-1001",
        ]);
        expect((await store.searchTickets({ text: "invoicé", status: "any", limit: 10 })).map((h) => h.id)).toEqual([
          "T-1002",
        ]);
      });

      it("punctuation splits words: codes, versions, paths, addresses and underscores are found by their parts", async () => {
        await create("Deploy fails", "Error code ERR-4581 in v2.18 of api/v3, mail ops@example.com, key max_retries");
        for (const query of ["4581", "err 4581", "18", "v2", "v3", "example", "retries", "max"]) {
          const hits = await store.searchTickets({ text: query, status: "any", limit: 10 });
          expect(
            hits.map((h) => h.id),
            query,
          ).toEqual(["T-1004"]);
        }
      });

      it("filters by status and honours the limit", async () => {
        expect((await store.searchTickets({ text: "dark", status: "open", limit: 10 })).length).toBe(0);
        expect((await store.searchTickets({ text: "dark", status: "closed", limit: 10 })).map((h) => h.id)).toEqual([
          "T-1003",
        ]);
        expect((await store.searchTickets({ text: "password", status: "any", limit: 1 })).map((h) => h.id)).toEqual([
          "T-1001",
        ]);
      });

      it("takes any text as a query without failing", async () => {
        for (const text of NASTY_QUERIES) {
          const hits = await store.searchTickets({ text, status: "any", limit: 10 });
          expect(Array.isArray(hits), text).toBe(true);
        }
        expect(await store.searchTickets({ text: '"password', status: "any", limit: 10 })).toHaveLength(2);
        expect(await store.searchTickets({ text: "NOT password", status: "any", limit: 10 })).toHaveLength(0);
        expect(await store.searchTickets({ text: "🔥", status: "any", limit: 10 })).toEqual([]);
      });
    });

    describe("similar tickets on create", () => {
      it("lists open tickets sharing words, best first, never itself or closed ones, at most 5", async () => {
        await create("Password reset email never arrives");
        await create("Export to CSV");
        await create("Login fails after password reset");
        await store.updateTicketStatus("T-1003", { status: "closed", resolution: "Fixed" });
        for (let i = 0; i < 6; i++) await create(`Reset link button ${i}`);
        const { ticket, similar } = await create("Password reset link expired");
        expect(ticket.id).toBe("T-1010");
        expect(similar).toHaveLength(5);
        expect(similar[0]).toEqual({ id: "T-1001", title: "Password reset email never arrives" });
        expect(similar.map((s) => s.id)).not.toContain("T-1010");
        expect(similar.map((s) => s.id)).not.toContain("T-1003");
        expect(similar.map((s) => s.id)).not.toContain("T-1002");
      });

      it("needs two shared words when the title has two or more", async () => {
        await create("Export to CSV");
        await create("Dark sidebar");
        expect((await create("Dark mode colours")).similar).toEqual([]);
        expect((await create("Dark mode toggle")).similar).toEqual([{ id: "T-1003", title: "Dark mode colours" }]);
        expect((await create("Exports")).similar).toEqual([{ id: "T-1001", title: "Export to CSV" }]);
      });
    });

    describe("idempotency keys", () => {
      it("returns the first result for the same key and arguments, and creates nothing more", async () => {
        const first = await store.createTicket({ title: "A", body: "B", priority: "low" }, { idempotencyKey: "k1" });
        await sleep(3);
        const again = await store.createTicket({ title: "A", body: "B", priority: "low" }, { idempotencyKey: "k1" });
        expect(again).toEqual(first);
        expect((await store.listTickets({ limit: 50 })).tickets).toHaveLength(1);
      });

      it("answers a reused key with other arguments with a conflict, and writes nothing", async () => {
        await store.createTicket({ title: "A", body: "B", priority: "low" }, { idempotencyKey: "k1" });
        const reuse = store.createTicket({ title: "A", body: "B", priority: "high" }, { idempotencyKey: "k1" });
        await expect(reuse).rejects.toBeInstanceOf(ConflictError);
        await expect(reuse).rejects.toThrow(
          "idempotency_key 'k1' was already used with different arguments; use a new key for a new request, or repeat the original arguments",
        );
        expect((await store.listTickets({ limit: 50 })).tickets).toHaveLength(1);
      });

      it("keeps racing creates with one key to one ticket", async () => {
        const results = await Promise.all(
          Array.from({ length: 20 }, () =>
            store.createTicket({ title: "Race", body: "Same", priority: "normal" }, { idempotencyKey: "race" }),
          ),
        );
        for (const r of results) expect(r).toEqual(results[0]);
        expect((await store.listTickets({ limit: 50 })).tickets).toHaveLength(1);
      });

      it("keeps keys of tickets and comments apart, and replays comments", async () => {
        await store.createTicket({ title: "A", body: "B", priority: "low" }, { idempotencyKey: "same" });
        const first = await store.addComment("T-1001", "hi", { idempotencyKey: "same" });
        const again = await store.addComment("T-1001", "hi", { idempotencyKey: "same" });
        expect(again).toEqual(first);
        expect((await store.getTicket("T-1001")).comment_count).toBe(1);
        await expect(store.addComment("T-1001", "other", { idempotencyKey: "same" })).rejects.toBeInstanceOf(
          ConflictError,
        );
      });

      it("does not spend a key on a failed write", async () => {
        await expect(store.addComment("T-1001", "hi", { idempotencyKey: "k" })).rejects.toBeInstanceOf(NotFoundError);
        await create("Now it exists");
        expect((await store.addComment("T-1001", "hi", { idempotencyKey: "k" })).comment_count).toBe(1);
      });
    });

    describe("status", () => {
      it("closes with a resolution, reopens clearing it, and reports no change for the same status", async () => {
        const { ticket } = await create("Login fails");
        await sleep(3);
        const closed = await store.updateTicketStatus("T-1001", { status: "closed", resolution: "Reset the cache" });
        expect(closed).toMatchObject({ previous_status: "open", changed: true });
        expect(closed.ticket).toMatchObject({ status: "closed", resolution: "Reset the cache" });
        expect(closed.ticket.updated_at > ticket.updated_at).toBe(true);
        const same = await store.updateTicketStatus("T-1001", { status: "closed", resolution: "Reset the cache" });
        expect(same).toEqual({ ...closed, previous_status: "closed", changed: false });
        const reopened = await store.updateTicketStatus("T-1001", { status: "open" });
        expect(reopened).toMatchObject({ previous_status: "closed", changed: true });
        expect(reopened.ticket).toMatchObject({ status: "open", resolution: null });
        const noop = await store.updateTicketStatus("T-1001", { status: "open" });
        expect(noop.changed).toBe(false);
      });

      it("refuses to close without a resolution", async () => {
        await create("Login fails");
        const refused = store.updateTicketStatus("T-1001", { status: "closed" });
        await expect(refused).rejects.toBeInstanceOf(InvalidArgumentsError);
        await expect(refused).rejects.toThrow('resolution is required when status is "closed"');
        await expect(store.updateTicketStatus("T-1001", { status: "closed", resolution: "  " })).rejects.toBeInstanceOf(
          InvalidArgumentsError,
        );
        expect((await store.getTicket("T-1001")).status).toBe("open");
      });
    });

    describe("comments", () => {
      it("adds comments, counts them and bumps the ticket's updated_at", async () => {
        const { ticket } = await create("Login fails");
        await sleep(3);
        const added = await store.addComment("T-1001", "First");
        expect(added).toMatchObject({ ticket_id: "T-1001", comment_count: 1, comment: { body: "First" } });
        expect(Number.isInteger(added.comment.id)).toBe(true);
        const second = await store.addComment("T-1001", "Second");
        expect(second.comment_count).toBe(2);
        expect(second.comment.id).toBeGreaterThan(added.comment.id);
        const got = await store.getTicket("T-1001");
        expect(got.comments).toEqual([added.comment, second.comment]);
        expect(got.updated_at > ticket.updated_at).toBe(true);
        expect(got.updated_at).toBe(second.comment.created_at);
      });

      it("pages comments from the latest back with an opaque cursor", async () => {
        await create("Chatty");
        await create("Other");
        for (let i = 1; i <= 7; i++) await store.addComment("T-1001", `c${i}`);
        await store.addComment("T-1002", "elsewhere");
        const latest = await store.getTicket("T-1001", { commentsLimit: 3 });
        expect(latest.comment_count).toBe(7);
        expect(latest.comments.map((c) => c.body)).toEqual(["c5", "c6", "c7"]);
        expect(latest.next_comments_cursor).toEqual(expect.any(String));
        const older = await store.getTicket("T-1001", {
          commentsLimit: 3,
          commentsCursor: latest.next_comments_cursor ?? "",
        });
        expect(older.comments.map((c) => c.body)).toEqual(["c2", "c3", "c4"]);
        const oldest = await store.getTicket("T-1001", {
          commentsLimit: 3,
          commentsCursor: older.next_comments_cursor ?? "",
        });
        expect(oldest.comments.map((c) => c.body)).toEqual(["c1"]);
        expect(oldest.next_comments_cursor).toBeNull();
        const all = await store.getTicket("T-1001", { commentsLimit: 7 });
        expect(all.next_comments_cursor).toBeNull();
      });

      it("rejects a cursor that is not one, or that belongs to another ticket", async () => {
        await create("One");
        await create("Two");
        for (let i = 0; i < 3; i++) await store.addComment("T-1001", `c${i}`);
        const { next_comments_cursor } = await store.getTicket("T-1001", { commentsLimit: 1 });
        const foreign = store.getTicket("T-1002", { commentsCursor: next_comments_cursor ?? "" });
        await expect(foreign).rejects.toBeInstanceOf(InvalidArgumentsError);
        await expect(foreign).rejects.toThrow(
          "comments_cursor belongs to another ticket; pass next_comments_cursor from the previous get_ticket call for T-1002 unchanged, or omit it for the latest comments",
        );
        await expect(store.getTicket("T-1001", { commentsCursor: "garbage!" })).rejects.toThrow(
          "comments_cursor is not valid; pass next_comments_cursor from the previous get_ticket call for T-1001 unchanged, or omit it for the latest comments",
        );
      });
    });

    describe("listing and completion", () => {
      it("lists most recently updated first, in keyset pages with no gaps or repeats", async () => {
        for (let i = 1; i <= 7; i++) {
          await create(`Ticket ${i}`);
          await sleep(2);
        }
        await store.addComment("T-1002", "bump");
        const seen: string[] = [];
        let cursor: string | undefined;
        let pages = 0;
        do {
          const page = await store.listTickets(cursor === undefined ? { limit: 3 } : { limit: 3, cursor });
          seen.push(...page.tickets.map((t) => t.id));
          cursor = page.next_cursor ?? undefined;
          pages++;
        } while (cursor !== undefined);
        expect(pages).toBe(3);
        expect(seen).toEqual(["T-1002", "T-1007", "T-1006", "T-1005", "T-1004", "T-1003", "T-1001"]);
      });

      it("filters the listing by status and rejects a cursor from another listing", async () => {
        for (let i = 1; i <= 3; i++) await create(`Ticket ${i}`);
        await store.updateTicketStatus("T-1002", { status: "closed", resolution: "done" });
        expect((await store.listTickets({ status: "closed", limit: 10 })).tickets.map((t) => t.id)).toEqual(["T-1002"]);
        const page = await store.listTickets({ status: "open", limit: 1 });
        await expect(
          store.listTickets({ status: "closed", limit: 1, cursor: page.next_cursor ?? "" }),
        ).rejects.toBeInstanceOf(InvalidArgumentsError);
        await expect(store.listTickets({ limit: 1, cursor: "nope" })).rejects.toThrow(
          "cursor is not valid; pass next_cursor from the previous page unchanged, or omit it",
        );
      });

      it("completes ids from what was typed, bounded", async () => {
        for (let i = 0; i < 12; i++) await create(`Ticket ${i}`);
        expect(await store.completeTicketIds("T-101", 10)).toEqual(["T-1010", "T-1011", "T-1012"]);
        expect(await store.completeTicketIds("t-1001", 10)).toEqual(["T-1001"]);
        expect(await store.completeTicketIds("100", 3)).toEqual(["T-1001", "T-1002", "T-1003"]);
        expect(await store.completeTicketIds("T-2", 10)).toEqual([]);
        expect(await store.completeTicketIds("x%", 10)).toEqual([]);
        expect(await store.completeTicketIds("", 5)).toHaveLength(5);
      });
    });
  });
}
