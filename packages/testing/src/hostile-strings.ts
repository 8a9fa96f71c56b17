import fc from "fast-check";

/** FTS5 and SQL syntax a search or a title must treat as plain text. */
export const QUERY_SYNTAX = [
  '"',
  '""',
  '"unterminated',
  "*",
  "gro*",
  "-milk",
  "NOT milk",
  "milk AND",
  "OR",
  "a OR b",
  "NEAR(milk eggs, 2)",
  "NEAR(",
  "title:milk",
  "{title body}:milk",
  "^milk",
  "(milk",
  "milk)",
  "+",
  "'",
  "' OR '1'='1",
  "'; DROP TABLE notes; --",
  '") OR 1=1 --',
  "%",
  "_%_",
  "\\",
  "\\%",
  "1; SELECT * FROM sqlite_master",
  "x' UNION SELECT sql FROM sqlite_master --",
  "🙂🙂",
  "ñandú café",
  "ﬁ",
  "İstanbul",
];

/** Characters that break naive parsers, terminals and log lines. */
const AWKWARD = [
  "\u0000",
  "\u0001",
  "\u001b[31m",
  "\b",
  "\r",
  "\n",
  "\t",
  "\u2028",
  "\u2029",
  "\ufeff",
  "\u200b",
  "\u0301",
  "\ud800",
  "\udfff",
  "\uffff",
  "\u{10ffff}",
  "𝕏",
  "👩‍👩‍👧",
];

const controlChars = fc.string({
  unit: fc.integer({ min: 0, max: 31 }).map((c) => String.fromCharCode(c)),
  maxLength: 20,
});

/** Strings of the kinds a fuzzer should try: syntax, control characters, unicode, empty, huge. */
export function hostileString(maxLength: number): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(...QUERY_SYNTAX),
    fc.constantFrom("", " ", "   ", "\t\n"),
    controlChars,
    fc.array(fc.constantFrom(...AWKWARD), { minLength: 1, maxLength: 8 }).map((parts) => parts.join("")),
    fc.string({ unit: "binary", maxLength: 40 }),
    fc.tuple(fc.constantFrom(...QUERY_SYNTAX), fc.constantFrom(...AWKWARD)).map(([a, b]) => `${a}${b}${a}`),
    fc.constantFrom(maxLength, maxLength + 1, 1_000, 100_000).map((n) => "x".repeat(n)),
  );
}
