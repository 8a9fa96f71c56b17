import { describe, expect, it } from "vitest";
import { meaningfulWords, sharedWordsQuery } from "./fts-terms.js";

describe("meaningfulWords", () => {
  it("keeps distinct words that are not stopwords, lower-cased, at most max", () => {
    expect(meaningfulWords("The login FAILS and the login fails: a NEAR miss", 10)).toEqual([
      "login",
      "fails",
      "near",
      "miss",
    ]);
    expect(meaningfulWords("one two three", 2)).toEqual(["one", "two"]);
  });
});

describe("sharedWordsQuery", () => {
  it("asks for any two of the words, each quoted", () => {
    expect(sharedWordsQuery("Password reset link")).toBe(
      '("password" AND "reset") OR ("password" AND "link") OR ("reset" AND "link")',
    );
  });

  it("asks for the one word when there is only one", () => {
    expect(sharedWordsQuery("The crash")).toBe('"crash"');
  });

  it("leaves no FTS syntax, and nothing for text without words", () => {
    expect(sharedWordsQuery('"a" * - ( ) 🔥')).toBeUndefined();
    expect(sharedWordsQuery("")).toBeUndefined();
    expect(sharedWordsQuery('ab"cd OR')).toBe('("ab" AND "cd")');
  });

  it("bounds the number of words", () => {
    const query = sharedWordsQuery("w1 w2 w3 w4 w5 w6 w7 w8 w9 w10") ?? "";
    expect(query.split(" OR ")).toHaveLength(28);
    expect(query).not.toContain("w9");
  });
});
