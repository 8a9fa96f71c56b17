import { describe, expect, it } from "vitest";
import { HttpConfigError } from "./http-errors.js";
import { parseTokenList, parseTokensFile } from "./tokens.js";

const A = "aaaaaaaaaaaaaaaa-1";
const B = "bbbbbbbbbbbbbbbb-2";

describe("TOOLSHED_TOKENS", () => {
  it("reads TOKEN:SCOPES entries separated by ; or newlines", () => {
    expect(parseTokenList(`${A}:tools:read tools:write; ${B}:tools:read\n`)).toEqual([
      { id: "env#1", token: A, scopes: ["tools:read", "tools:write"] },
      { id: "env#2", token: B, scopes: ["tools:read"] },
    ]);
    expect(parseTokenList(`${A}:tools:read,tools:write`)[0]?.scopes).toEqual(["tools:read", "tools:write"]);
  });

  it("reads any RFC 6749 scope (a tool's own, such as notes:admin); the authenticator checks it is supported", () => {
    expect(parseTokenList(`${A}:tools:read notes:admin`)[0]?.scopes).toEqual(["tools:read", "notes:admin"]);
  });

  it.each([
    [A, "TOOLSHED_TOKENS entry 1: write TOKEN:SCOPES, as in mytoken…:tools:read tools:write"],
    [`${A}:`, "TOOLSHED_TOKENS entry 1: give the token's scopes, tools:read and/or tools:write"],
    [
      `${A}:tools:read tools:"write`,
      'TOOLSHED_TOKENS entry 1: "tools:\\"write" is not a scope; a scope is printable ASCII without spaces, " or \\, as in tools:read',
    ],
    [
      "short:tools:read",
      "TOOLSHED_TOKENS entry 1: a token needs at least 16 characters; make one with: openssl rand -hex 32",
    ],
    [
      `${A}"x:tools:read`,
      "TOOLSHED_TOKENS entry 1: a token may hold only letters, digits and - . _ ~ + / (then = padding)",
    ],
    [`${A}:tools:read;${A}:tools:write`, "TOOLSHED_TOKENS: token env#2 appears twice; give each token once"],
  ])("%j is refused with a hint", (text, message) => {
    expect(() => parseTokenList(text)).toThrow(new HttpConfigError(message));
  });
});

describe("tokens file", () => {
  it("reads lines of TOKEN SCOPES with comments", () => {
    expect(parseTokensFile(`# team\n${A} tools:read tools:write  # ci\n\n${B} tools:read\n`, "t.txt")).toEqual([
      { id: "file#2", token: A, scopes: ["tools:read", "tools:write"] },
      { id: "file#4", token: B, scopes: ["tools:read"] },
    ]);
  });

  it("reads JSON, as a list or {tokens}, with optional ids and scopes as a list or a string", () => {
    const list = JSON.stringify([
      { token: A, scopes: ["tools:read"], id: "ci-bot" },
      { token: B, scopes: "tools:read tools:write" },
    ]);
    const expected = [
      { id: "ci-bot", token: A, scopes: ["tools:read"] },
      { id: "file#2", token: B, scopes: ["tools:read", "tools:write"] },
    ];
    expect(parseTokensFile(list, "t.json")).toEqual(expected);
    expect(parseTokensFile(JSON.stringify({ tokens: JSON.parse(list) }), "t.json")).toEqual(expected);
    expect(parseTokensFile(`${A} tools:write notes:admin`, "t.txt")[0]?.scopes).toEqual(["tools:write", "notes:admin"]);
  });

  it("reads a token's own rate_limit (requests per minute, 0 = unlimited)", () => {
    const text = JSON.stringify([
      { token: A, scopes: ["tools:read"], id: "import", rate_limit: 30 },
      { token: B, scopes: ["tools:read"], rate_limit: 0 },
    ]);
    expect(parseTokensFile(text, "t.json").map((t) => t.rateLimit)).toEqual([30, 0]);
  });

  it.each([
    [
      `[{"token": "${A}", "scopes": "tools:read", "rate_limit": "30"}]`,
      't.json token 1: "rate_limit" is requests per minute, a whole number from 0 (unlimited) to 1000000 (got "30")',
    ],
    [
      `[{"token": "${A}", "scopes": "tools:read", "rate_limit": 2.5}]`,
      't.json token 1: "rate_limit" is requests per minute, a whole number from 0 (unlimited) to 1000000 (got 2.5)',
    ],
    ["[oops", 't.json is not valid JSON; write [{"token": "…", "scopes": ["tools:read"]}]'],
    ['{"a": 1}', 't.json: expected a list of tokens, as in [{"token": "…", "scopes": ["tools:read"]}]'],
    ["[1]", 't.json token 1: each entry needs "token" (a string) and "scopes"'],
    [`[{"token": "${A}"}]`, "t.json token 1: give the token's scopes, tools:read and/or tools:write"],
    [
      `[{"token": "${A}", "scopes": ["tools:read", "notes admin"]}]`,
      't.json token 1: "notes admin" is not a scope; a scope is printable ASCII without spaces, " or \\, as in tools:read',
    ],
  ])("%j is refused with a hint", (text, message) => {
    expect(() => parseTokensFile(text, "t.json")).toThrow(new HttpConfigError(message));
  });
});
