import { AssertionError } from "node:assert";
import { describe, expect, it } from "vitest";
import { connectPack, expectInvalidArguments, expectToolError, expectToolResult } from "../src/index.js";
import { booksPack } from "./fixture.js";

/** The message of the AssertionError `run` throws. */
function failure(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AssertionError);
    return (error as Error).message;
  }
  throw new Error("expected the assertion to fail");
}

describe("assertions on real results", async () => {
  const conn = await connectPack(booksPack());
  const ok = await conn.call("get_book", { id: "dune" });
  const notFound = await conn.call("get_book", { id: "nope" });
  const tooMany = await conn.call("search_books", { query: "a", limit: 999 });
  const badTag = await conn.call("search_books", { query: "a", filters: { tags: [""] } });
  const flaky = await conn.call("flaky", {});
  const wrapped = await conn.call("search_books", { query: "dune" });
  await conn.close();

  it("expectToolResult returns the structured content, or says what the error was", () => {
    const book: { title: string; year: number } = expectToolResult<{ title: string; year: number }>(ok);
    expect(book).toEqual({ title: "Dune", year: 1965 });
    expect(expectToolResult(wrapped)).toEqual({ result: ["Dune"] });
    const message = failure(() => expectToolResult(notFound));
    expect(message).toContain(
      "Expected a successful tool result, got an error: Error executing tool get_book: No book 'nope'. Known ids: dune, emma",
    );
    expect(message).toContain('"isError": true');
    expect(failure(() => expectToolResult({ content: "text" }))).toContain(
      "Expected a tool result: a tool result needs a content array.",
    );
    expect(failure(() => expectToolResult({ content: [] }))).toContain(
      "Expected a tool result with an object as structuredContent, got none.",
    );
  });

  it("expectToolError returns the error class and text, and checks code, retryable and message", () => {
    expect(expectToolError(notFound, { code: "not_found", retryable: false, message: "Known ids" })).toEqual({
      kind: "tool",
      code: "not_found",
      retryable: false,
      text: "Error executing tool get_book: No book 'nope'. Known ids: dune, emma",
    });
    expect(expectToolError(flaky, { retryable: true, message: /safe to retry$/ }).code).toBe("unavailable");
    expect(failure(() => expectToolError(ok))).toContain(
      "Expected a tool error result (isError: true), got a successful result.",
    );
    expect(failure(() => expectToolError(notFound, { code: "conflict" }))).toContain(
      "Expected a tool error with code conflict, got tool/not_found: Error executing tool get_book: No book 'nope'.",
    );
    expect(failure(() => expectToolError(flaky, { retryable: false }))).toContain(
      "Expected a tool error that is not retryable, got tool/unavailable, retryable: Error executing tool flaky: the catalogue is down",
    );
    expect(failure(() => expectToolError(notFound, { message: "Known titles" }))).toContain(
      "Expected the error text to contain Known titles, got tool/not_found",
    );
    const noMeta = { content: [{ type: "text", text: "Error executing tool x: boom" }], isError: true };
    expect(failure(() => expectToolError(noMeta))).toContain(
      'Expected the error class in _meta["toolshed.dev/error"] (C9), found none.',
    );
  });

  it("expectInvalidArguments finds the hint for an argument path, as a string or an array", () => {
    expect(expectInvalidArguments(tooMany, "limit")).toEqual({
      path: "limit",
      message: "must be at most 50 (got 999)",
    });
    expect(expectInvalidArguments(badTag, "filters.tags[0]").message).toBe("must not be empty");
    expect(expectInvalidArguments(badTag, ["filters", "tags", 0]).path).toBe("filters.tags[0]");
    expect(failure(() => expectInvalidArguments(tooMany, "query"))).toContain(
      "Expected an invalid-arguments hint for query, got hints for limit",
    );
    expect(failure(() => expectInvalidArguments(notFound, "id"))).toContain(
      "Expected a tool error with code invalid_arguments, got tool/not_found",
    );
    expect(failure(() => expectInvalidArguments(ok, "id"))).toContain("got a successful result");
  });
});
