import { describe, expect, it } from "vitest";
import { closestMatches, closestToolNames, didYouMean } from "./suggest.js";

describe("closestMatches (C8 hints: for long lists, the closest matches)", () => {
  it("C8: names that contain the input come before closer edit-distance matches", () => {
    expect(closestMatches("note", ["nose", "notebook-archive"])).toStrictEqual(["notebook-archive", "nose"]);
  });

  it("C8: names contained in the input also count as substring matches", () => {
    expect(closestMatches("groceries for sunday", ["groceries list", "groceries", "gardening"])).toStrictEqual([
      "groceries",
      "groceries list",
      "gardening",
    ]);
  });

  it("C8: substring matches are ordered by edit distance among themselves", () => {
    expect(closestMatches("todo", ["todo-archive-2019", "todos", "my-todo"])).toStrictEqual([
      "todos",
      "my-todo",
      "todo-archive-2019",
    ]);
  });

  it("C8: the rest are ordered by edit distance, ties alphabetically", () => {
    // kitten -> mitten 1, bitter 2, kitchen 2, sitting 3
    expect(closestMatches("kitten", ["sitting", "kitchen", "mitten", "bitter"])).toStrictEqual([
      "mitten",
      "bitter",
      "kitchen",
      "sitting",
    ]);
  });

  it("C8: a typo finds the intended name first", () => {
    expect(closestMatches("grocries", ["todo", "recipes", "groceries", "work"])[0]).toBe("groceries");
  });

  it("C8: returns at most `limit` names, 5 by default", () => {
    const names = ["a1", "a2", "a3", "a4", "a5", "a6", "a7"];
    expect(closestMatches("a", names)).toStrictEqual(["a1", "a2", "a3", "a4", "a5"]);
    expect(closestMatches("a", names, 2)).toStrictEqual(["a1", "a2"]);
    expect(closestMatches("a", names, 100)).toHaveLength(7);
    expect(closestMatches("a", names, 0)).toStrictEqual([]);
    expect(closestMatches("a", names, -3)).toStrictEqual([]);
  });

  it("C8: compares case-insensitively but returns names as written", () => {
    expect(closestMatches("TODO", ["tada", "my todo list", "done", "Todo"])).toStrictEqual([
      "Todo",
      "my todo list",
      "tada",
      "done",
    ]);
    expect(closestMatches("groceries", ["GROCERIES", "recipes"])[0]).toBe("GROCERIES");
  });

  it("C8: removes duplicate names", () => {
    expect(closestMatches("todo", ["todo", "groceries", "todo", "groceries"])).toStrictEqual(["todo", "groceries"]);
  });

  it("accepts any iterable (a Set, a Map's keys, a generator)", () => {
    expect(closestMatches("todo", new Set(["work", "todo"]))).toStrictEqual(["todo", "work"]);
    expect(closestMatches("todo", new Map([["todo", 1]]).keys())).toStrictEqual(["todo"]);
    function* names() {
      yield "todo";
      yield "work";
    }
    expect(closestMatches("work", names())).toStrictEqual(["work", "todo"]);
  });

  it("empty candidates give an empty list", () => {
    expect(closestMatches("todo", [])).toStrictEqual([]);
    expect(closestMatches("", [])).toStrictEqual([]);
  });

  it("an empty input ranks the shortest names first, with no substring bonus", () => {
    expect(closestMatches("", ["bbb", "a", "cc"])).toStrictEqual(["a", "cc", "bbb"]);
  });

  // KNOWN FAILING: suggest.ts:13 `needle.includes(hay)` is true for an empty candidate, so "" gets the
  // substring bonus for every non-empty input and is suggested first ("Closest titles: , groceries").
  it("C8: an empty candidate name does not outrank a one-typo match", () => {
    expect(closestMatches("grocries", ["", "groceries"])[0]).toBe("groceries");
  });
});

describe("didYouMean (one suggestion for a misspelt name)", () => {
  const flags = ["host", "port", "db", "sessions", "session-idle-timeout", "sessions-per-client", "read-only", "help"];

  it("names the candidate a typo was meant to be: a letter missing, extra, swapped or changed", () => {
    expect(didYouMean("sesions", flags)).toBe("sessions");
    expect(didYouMean("sessionss", flags)).toBe("sessions");
    expect(didYouMean("prot", flags)).toBe("port");
    expect(didYouMean("hots", flags)).toBe("host");
    expect(didYouMean("SESSIONS", flags)).toBe("sessions");
  });

  it("names the candidate an input begins, from three characters on", () => {
    expect(didYouMean("read", flags)).toBe("read-only");
    expect(didYouMean("session-idle", flags)).toBe("session-idle-timeout");
  });

  it("says nothing when no candidate is close: no guess from a letter or an unrelated word", () => {
    expect(didYouMean("x", flags)).toBeUndefined();
    expect(didYouMean("bogus", flags)).toBeUndefined();
    expect(didYouMean("nope", flags)).toBeUndefined();
    expect(didYouMean("re", flags)).toBeUndefined();
    expect(didYouMean("", flags)).toBeUndefined();
    expect(didYouMean("sessions", [])).toBeUndefined();
  });
});

describe("closestToolNames (the unknown-tool hint)", () => {
  const tools = [
    "get_note",
    "search_notes",
    "list_notes",
    "create_note",
    "update_note",
    "delete_note",
    "get_ticket",
    "search_tickets",
    "crm_get_account",
  ];

  it("offers first the names with the same words in another order or number", () => {
    expect(closestToolNames("notes_search", tools)[0]).toBe("search_notes");
    expect(closestToolNames("get_tickets", tools)[0]).toBe("get_ticket");
    expect(closestToolNames("searchTickets", tools)[0]).toBe("search_tickets");
    expect(closestToolNames("get_account", tools)[0]).toBe("crm_get_account");
  });

  it("takes a verb of the same kind for the one the name uses", () => {
    expect(closestToolNames("add_note", tools)[0]).toBe("create_note");
    expect(closestToolNames("remove_note", tools)[0]).toBe("delete_note");
    expect(closestToolNames("edit_note", tools)[0]).toBe("update_note");
    expect(closestToolNames("find_tickets", tools)[0]).toBe("search_tickets");
  });

  it("falls back to edit distance when no word is shared, and keeps the limit", () => {
    expect(closestToolNames("nope", tools, 2)).toEqual(closestMatches("nope", tools, 2));
    expect(closestToolNames("note", tools, 0)).toEqual([]);
    expect(closestToolNames("x", [], 3)).toEqual([]);
  });
});
