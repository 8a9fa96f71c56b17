import { readFileSync } from "node:fs";
import { HttpConfigError } from "./http-errors.js";
import { parseTokenList, parseTokensFile, type StaticToken } from "./tokens.js";

/** Tokens from --tokens-file and TOOLSHED_TOKENS together; a token may appear in only one place. */
export function loadTokens(tokensFile: string | undefined, tokensText: string | undefined): StaticToken[] {
  const tokens: StaticToken[] = [];
  if (tokensFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(tokensFile, "utf8");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
      throw new HttpConfigError(`cannot read the tokens file ${tokensFile} (${code}); check --tokens-file`);
    }
    const fromFile = parseTokensFile(text, tokensFile);
    if (fromFile.length === 0) {
      throw new HttpConfigError(`${tokensFile} holds no tokens; add lines of TOKEN tools:read tools:write`);
    }
    tokens.push(...fromFile);
  }
  if (tokensText !== undefined) tokens.push(...parseTokenList(tokensText));
  const seen = new Set<string>();
  for (const t of tokens) {
    if (seen.has(t.token)) {
      throw new HttpConfigError(`token ${t.id} is also in the tokens file; give each token once`);
    }
    seen.add(t.token);
  }
  return tokens;
}
