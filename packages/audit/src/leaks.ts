/** What an answer must not show a client (C7): the kind of leak and the pattern that finds it. */
const LEAKS: Array<[string, RegExp]> = [
  ["a stack trace", /^\s*at [^\n]*(?:\(|\s)(?:file:\/\/|node:|\/|[A-Za-z]:\\)[^\n]*:\d+(?::\d+)?\)?$/m],
  ["a stack trace", /Traceback \(most recent call last\)/],
  ["an absolute file path", /file:\/\/\/[^\s"'`)\]},;]+/],
  [
    "an absolute file path",
    /(?<![\w.:/-])\/(?:home|Users|usr|var|tmp|opt|root|srv|app|workspace|private|mnt|data)\/[^\s"'`)\]},;]+/,
  ],
  ["an absolute file path", /\b[A-Za-z]:\\[^\s"'`)\]},;]+/],
  ["SQL text", /\b(?:SELECT\s+[\w*.,\s"`]+?\s+FROM|INSERT\s+INTO|UPDATE\s+[\w"`.]+\s+SET|DELETE\s+FROM)\b/i],
  [
    "a database error",
    /\bSQLITE_[A-Z_]+\b|\bsyntax error at or near\b|near "[^"]*": syntax error|\bfts5: syntax error\b/i,
  ],
  [
    "an exception class or errno",
    /\b(?:TypeError|ReferenceError|RangeError|SyntaxError|SqliteError|DatabaseError|ZodError|AxiosError|PrismaClient\w*Error|[A-Z]\w*Exception|ENOENT|EACCES|EPERM|ECONNREFUSED|EADDRINUSE)\b/,
  ],
];

export interface Leak {
  kind: string;
  text: string;
}

/**
 * Finds internals in an answer's text. Parts the client itself sent (echoed in a hint, perhaps
 * cut short with an ellipsis) are not leaks.
 */
export function findLeak(answer: string, sent: string[]): Leak | undefined {
  for (const [kind, pattern] of LEAKS) {
    const global = new RegExp(pattern.source, `${pattern.flags.replace("g", "")}g`);
    for (const match of answer.matchAll(global)) {
      const text = match[0].trim();
      const core = text.replace(/(?:…|\.\.\.)$/, "");
      if (sent.some((s) => s.includes(core) || JSON.stringify(s).includes(core))) continue;
      return { kind, text };
    }
  }
  return undefined;
}
