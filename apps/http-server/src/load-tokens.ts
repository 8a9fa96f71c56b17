import { readFileSync } from "node:fs";
import { HttpConfigError, parseTokenList, parseTokensFile, type StaticToken } from "@toolshed/http";

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

/** A secret kept in a file (a mounted secret): its first line, without the newline editors add. */
export function loadSecret(path: string, flag: string): string {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
    throw new HttpConfigError(`cannot read the secret file ${path} (${code}); check ${flag}`);
  }
  const secret = text.split(/\r?\n/)[0]?.trim() ?? "";
  if (secret === "") throw new HttpConfigError(`${path} is empty; put the secret on its first line (${flag})`);
  return secret;
}
