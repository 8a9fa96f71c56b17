import { describe, expect, it } from "vitest";
import { readAnswer, repair } from "./repair.mjs";

const refused = (text, _meta) => readAnswer({ result: { isError: true, content: [{ type: "text", text }], _meta } });
const thrown = (message) => readAnswer({ error: { message } });

describe("the recovery benchmark's repair (reads only the answer)", () => {
  const call = { name: "search_notes", arguments: { query: "gro", limit: 500 } };
  const meant = { query: "gro", limit: 500 };

  it("makes no second try when the answer points at nothing", () => {
    expect(repair(call, refused("Invalid arguments"), meant)).toBeUndefined();
    expect(repair(call, thrown("MCP error -32602: Tool search_notes failed"), meant)).toBeUndefined();
    expect(repair({ name: "get_notes", arguments: {} }, thrown("Tool get_notes not found"), {})).toBeUndefined();
  });

  it("clamps to a bound the answer states, in any of the usual wordings", () => {
    for (const text of ["limit: must be at most 50 (got 500)", "Too big: expected number to be <=50 at limit"]) {
      expect(repair(call, refused(text), meant)?.arguments).toEqual({ query: "gro", limit: 50 });
    }
  });

  it("picks the listed value that matches ignoring case, and takes a tool name the answer offers", () => {
    const status = { name: "search_tickets", arguments: { query: "x", status: "Open" } };
    const answer = thrown('Invalid option: expected one of "open"|"closed"|"any" at status');
    expect(repair(status, answer, { query: "x", status: "Open" })?.arguments.status).toBe("open");
    const tool = repair(
      { name: "notes_search", arguments: { query: "x" } },
      thrown("Unknown tool: notes_search. Closest tools: search_notes, get_note"),
      { query: "x" },
    );
    expect(tool).toEqual({ name: "search_notes", arguments: { query: "x" } });
  });

  it("renames or drops an argument the answer calls unknown, and a list of valid names points at none of them", () => {
    const sent = { name: "get_note", arguments: { title: "todo", titel: "x", verbose: true } };
    const answer = refused(
      'titel: unknown argument; did you mean "title"? Valid arguments: title\nverbose: unknown argument; valid arguments: title',
    );
    expect(repair(sent, answer, { title: "todo" })?.arguments).toEqual({ title: "todo" });
  });

  it("sends what the model meant only for arguments the answer names, reading structured issues too", () => {
    const sent = { name: "create_note", arguments: { title: "a", tags: null, body: 5 } };
    const issues = { "x/error": { issues: [{ path: "body", message: "must be a string (got 5)" }] } };
    const next = repair(sent, refused("Invalid arguments\ntags: must be an array (got null)", issues), {
      title: "b",
      body: "five",
    });
    // title was not named: kept as sent, though the model "meant" another value.
    expect(next?.arguments).toEqual({ title: "a", body: "five" });
  });
});
