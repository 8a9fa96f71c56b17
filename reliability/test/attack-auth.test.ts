import type { HttpProcess } from "@toolshed/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Jwks, startJwks } from "../../test-support/src/jwks.js";
import { bearer, type HttpAnswer, post, toolCall } from "./attack-support/http.js";
import { legitimateCall, whileAttacking } from "./attack-support/legit.js";
import { startHttpServer, stopAll } from "./attack-support/server.js";

// Attacks on authentication and scopes, against the real bin with static tokens and a JWKS.
const WRITE = "attack-write-token-0123456789abcdef";
const READ = "attack-read-token-0123456789abcdef";
const ISSUER = "https://issuer.attack.test";
const AUDIENCE = "https://toolshed.attack.test/mcp";

let server: HttpProcess;
let jwks: Jwks;
const sentTokens: string[] = [];

const ping = { jsonrpc: "2.0", id: 7, method: "ping" };
const metadataUrl = () => `${server.base}/.well-known/oauth-protected-resource`;
const invalid = (description: string) =>
  `Bearer resource_metadata="${metadataUrl()}", error="invalid_token", error_description="${description}"`;

beforeAll(async () => {
  jwks = await startJwks();
  server = await startHttpServer(
    [
      "--demo",
      "--jwks-url",
      jwks.url,
      "--jwt-issuer",
      ISSUER,
      "--jwt-audience",
      AUDIENCE,
      // Failed attempts count per address; these tests send many on purpose (floods are in attack-limits).
      "--rate-limit",
      "100000",
      // Long enough that a key id the key set lacks always meets the cooldown (see below).
      "--jwks-cooldown",
      "10m",
    ],
    { env: { TOOLSHED_TOKENS: `${WRITE}:tools:read tools:write;${READ}:tools:read` } },
  );
});
afterAll(async () => {
  await stopAll();
  await jwks?.close();
});

const good = { issuer: ISSUER, audience: AUDIENCE };
const now = () => Math.floor(Date.now() / 1000);

interface AuthAttack {
  name: string;
  /** The Authorization header to send (a list sends it once per value); undefined sends none. */
  authorization: () => Promise<string | string[] | undefined>;
  /** More headers (the raw form a list of values needs has no Host of its own). */
  headers?: () => Record<string, string>;
  status: number;
  message: string;
  /** The exact WWW-Authenticate header (none with 503). */
  wwwAuthenticate: () => string | undefined;
}

const rejected = (description: string) => ({
  status: 401,
  message: description,
  wwwAuthenticate: () => invalid(description),
});
const NOT_VALID = "Unauthorized: the token is not valid";
const jwt = (claims: Record<string, unknown>, options: Partial<Parameters<Jwks["sign"]>[1]> = {}) =>
  jwks.sign(claims, { ...good, ...options });

const authAttacks: AuthAttack[] = [
  {
    name: "no Authorization header",
    authorization: async () => undefined,
    status: 401,
    message: "Unauthorized: send the header Authorization: Bearer <token>",
    wwwAuthenticate: () => `Bearer resource_metadata="${metadataUrl()}"`,
  },
  {
    name: "Basic credentials instead of a bearer token",
    authorization: async () => `Basic ${Buffer.from(`admin:${WRITE}`).toString("base64")}`,
    ...rejected("Unauthorized: use the Bearer scheme, Authorization: Bearer <token>"),
  },
  {
    name: "Bearer with two tokens",
    authorization: async () => `Bearer ${READ} ${WRITE}`,
    ...rejected("Unauthorized: use the Bearer scheme, Authorization: Bearer <token>"),
  },
  {
    // node:http would keep only the first; both must count, as a proxy may pick either.
    name: "two Authorization headers, the right token first",
    authorization: async () => [`Bearer ${WRITE}`, `Bearer ${"f".repeat(40)}`],
    headers: () => ({ host: `127.0.0.1:${server.port}` }),
    ...rejected("Unauthorized: use the Bearer scheme, Authorization: Bearer <token>"),
  },
  { name: "a wrong static token", authorization: async () => `Bearer ${"f".repeat(40)}`, ...rejected(NOT_VALID) },
  { name: "the right static token plus a byte", authorization: async () => `Bearer ${WRITE}x`, ...rejected(NOT_VALID) },
  {
    name: "a prefix of the right static token",
    authorization: async () => `Bearer ${WRITE.slice(0, -1)}`,
    ...rejected(NOT_VALID),
  },
  {
    name: "a malformed JWT (three dots of junk)",
    authorization: async () => "Bearer aaa.bbb.ccc",
    ...rejected(NOT_VALID),
  },
  {
    name: "a JWT whose payload is not JSON",
    authorization: async () => {
      const [header, , signature] = (await jwt({ scope: "tools:write" })).split(".");
      return `Bearer ${header}.${Buffer.from("not json").toString("base64url")}.${signature}`;
    },
    ...rejected(NOT_VALID),
  },
  {
    name: "an expired JWT",
    authorization: async () => `Bearer ${await jwt({ scope: "tools:write" }, { expiresIn: now() - 3600 })}`,
    ...rejected("Unauthorized: the token has expired; get a new one"),
  },
  {
    name: "a JWT not valid yet (nbf in an hour)",
    authorization: async () => `Bearer ${await jwt({ scope: "tools:write" }, { notBefore: now() + 3600 })}`,
    ...rejected("Unauthorized: the token is not valid yet"),
  },
  {
    name: "a JWT from another issuer",
    authorization: async () => `Bearer ${await jwt({ scope: "tools:write" }, { issuer: "https://evil.test" })}`,
    ...rejected(`Unauthorized: the token was not issued by ${ISSUER}`),
  },
  {
    name: "a JWT for another audience",
    authorization: async () => `Bearer ${await jwt({ scope: "tools:write" }, { audience: "https://other.test/mcp" })}`,
    ...rejected("Unauthorized: the token was issued for another audience, not this server"),
  },
  {
    name: "a JWT signed by another key under the server's key id",
    authorization: async () => `Bearer ${await jwt({ scope: "tools:write" }, { strangerKey: true })}`,
    ...rejected(NOT_VALID),
  },
  {
    // The key may have been published since the last fetch: "retry later", never a fetch per token.
    name: "a JWT signed by a key id the JWKS does not have, within the key-set cooldown",
    authorization: async () => `Bearer ${await jwt({ scope: "tools:write" }, { strangerKey: true, kid: "evil" })}`,
    status: 503,
    message: "Service Unavailable: the token is signed with a key the server has not loaded yet; retry later",
    wwwAuthenticate: () => undefined,
  },
  {
    name: "a JWT with a valid signature and a changed payload",
    authorization: async () => {
      const [header, payload, signature] = (await jwt({ scope: "tools:read" })).split(".");
      const claims = JSON.parse(Buffer.from(payload ?? "", "base64url").toString());
      const forged = Buffer.from(JSON.stringify({ ...claims, scope: "tools:write" })).toString("base64url");
      return `Bearer ${header}.${forged}.${signature}`;
    },
    ...rejected(NOT_VALID),
  },
  {
    name: "an `alg: none` JWT with no signature",
    authorization: async () => `Bearer ${jwks.unsigned({ scope: "tools:read tools:write" }, good)}`,
    ...rejected(NOT_VALID),
  },
  {
    name: "an HS256 JWT keyed with the server's public key (algorithm confusion)",
    authorization: async () => `Bearer ${await jwks.hmacWithPublicKey({ scope: "tools:write" }, good)}`,
    ...rejected(NOT_VALID),
  },
  {
    name: "a valid JWT without a tools scope",
    authorization: async () => `Bearer ${await jwt({ scope: "openid profile admin" })}`,
    status: 403,
    message: "Forbidden: the token needs the scope tools:read or tools:write",
    wwwAuthenticate: () =>
      `Bearer resource_metadata="${metadataUrl()}", error="insufficient_scope", error_description="Forbidden: the token needs the scope tools:read or tools:write", scope="tools:read tools:write"`,
  },
];

describe("forged, stolen and broken credentials", () => {
  it.each(authAttacks)("$name: $status with the documented answer", async (attack) => {
    const authorization = await attack.authorization();
    for (const value of [authorization ?? []].flat()) sentTokens.push(value.replace(/^\S+\s+/, ""));
    // Each forged request is also a tools/call that would write: nothing may get through.
    const res = await whileAttacking(
      () =>
        post(server.url, toolCall("create_note", { title: `forged ${attack.name}`, body: "x" }), {
          ...attack.headers?.(),
          ...(authorization ? { authorization } : {}),
        }),
      () => legitimateCall(server.url, WRITE),
    );
    expect(res.status, res.text).toBe(attack.status);
    expect(res.json).toEqual({ jsonrpc: "2.0", error: { code: -32000, message: attack.message }, id: null });
    expect(res.headers["www-authenticate"]).toBe(attack.wwwAuthenticate());
    const after = await post(server.url, toolCall("get_note", { title: `forged ${attack.name}` }), bearer(WRITE));
    expect(resultOf(after)._meta?.["toolshed.dev/error"]).toMatchObject({ code: "not_found" });
  });

  it("a valid static token and a valid JWT are served", async () => {
    for (const token of [WRITE, await jwt({ scope: "tools:read tools:write" })]) {
      const res = await post(server.url, ping, bearer(token));
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ jsonrpc: "2.0", id: 7, result: {} });
    }
  });
});

describe("a token in the query string", () => {
  it.each([
    ["access_token", WRITE, undefined],
    ["token", WRITE, undefined],
    ["bearer", READ, undefined],
    ["api_key", WRITE, undefined],
    ["access_token", "guess-0123456789abcdef", WRITE],
  ])("?%s=… is 400, never accepted (valid header too: %s)", async (name, value, header) => {
    const res = await whileAttacking(
      () => post(`${server.url}?${name}=${value}`, ping, header ? bearer(header) : {}),
      () => legitimateCall(server.url, READ),
    );
    const message = `Bad Request: tokens are not accepted in the URL (found "${name}"); send the header Authorization: Bearer <token>`;
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ jsonrpc: "2.0", error: { code: -32000, message }, id: null });
    expect(res.headers["www-authenticate"]).toBe(
      `Bearer resource_metadata="${metadataUrl()}", error="invalid_request", error_description="${message.replace(/"/g, "'")}"`,
    );
  });
});

// Every tool of the three packs that changes data, with arguments that succeed for a write token.
const WRITE_TOOLS: Array<[string, Record<string, unknown>]> = [
  ["create_note", { title: "scope attack", body: "x" }],
  ["update_note", { title: "groceries", body: "pwned" }],
  ["delete_note", { title: "groceries" }],
  ["create_ticket", { title: "scope attack", body: "x" }],
  ["update_ticket_status", { id: "T-1001", status: "closed", resolution: "pwned" }],
  ["bulk_update_ticket_status", { ids: ["T-1002"], status: "closed", resolution: "pwned" }],
  ["add_ticket_comment", { id: "T-1001", body: "pwned" }],
  ["crm_create_account", { name: "Scope Attack Inc", tier: "startup", arr: 1 }],
  ["crm_bulk_update_tier", { account_ids: ["acc_1001"], new_tier: "enterprise" }],
];

interface RpcResult {
  isError?: boolean;
  content?: Array<{ text?: string }>;
  structuredContent?: unknown;
  _meta?: Record<string, unknown>;
  tools?: Array<{ name: string; annotations?: { readOnlyHint?: boolean } }>;
}
const resultOf = (answer: HttpAnswer) => (answer.json as { result: RpcResult }).result;

describe("read scope reaching for write tools", () => {
  const readers: Array<[string, () => Promise<string>]> = [
    ["a static tools:read token", async () => READ],
    ["a JWT with scope tools:read", () => jwt({ scope: "tools:read openid" })],
    ["a JWT with scp [tools:read] and an unknown scope", () => jwt({ scp: ["tools:read", "tools:admin"] })],
  ];

  it.each(readers)("%s: tools/list leaves every write tool out", async (_who, token) => {
    const res = await post(server.url, { jsonrpc: "2.0", id: 1, method: "tools/list" }, bearer(await token()));
    const names = (resultOf(res).tools ?? []).map((t) => t.name);
    expect(names).toContain("get_note");
    expect(names).toContain("crm_search_accounts");
    for (const [tool] of WRITE_TOOLS) expect(names).not.toContain(tool);
    expect(resultOf(res).tools?.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
  });

  it.each(readers)("%s: tools/call of each write tool is permission_denied and changes nothing", async (_who, get) => {
    const token = await get();
    const before = await snapshot();
    const batch = WRITE_TOOLS.map(([name, args], i) => toolCall(name, args, i));
    const res = await whileAttacking(
      () => post(server.url, batch, bearer(token)),
      () => legitimateCall(server.url, WRITE),
    );
    expect(res.status).toBe(200);
    const answers = res.json as Array<{ id: number; result: RpcResult }>;
    expect(answers).toHaveLength(WRITE_TOOLS.length);
    for (const answer of answers) {
      const name = WRITE_TOOLS[answer.id]?.[0];
      expect(answer.result.isError).toBe(true);
      expect(answer.result.content?.[0]?.text).toMatch(
        new RegExp(
          `^Error executing tool ${name}: your credentials allow read-only tools only; ${name} changes data\\.`,
        ),
      );
      expect(answer.result._meta?.["toolshed.dev/error"]).toMatchObject({
        kind: "tool",
        code: "permission_denied",
        retryable: false,
      });
      expect(answer.result.structuredContent).toBeUndefined();
    }
    expect(await snapshot()).toEqual(before);
  });

  it("a read token calling a write tool with bad arguments learns nothing about its schema", async () => {
    const res = await post(server.url, toolCall("create_note", { title: 42 }), bearer(READ));
    const result = resultOf(res);
    expect(result.isError).toBe(true);
    expect(result._meta?.["toolshed.dev/error"]).toMatchObject({ code: "permission_denied" });
  });
});

/** What the write tools above would change, read with the write token. */
async function snapshot() {
  const calls = [
    toolCall("get_note", { title: "groceries" }, 1),
    toolCall("get_note", { title: "scope attack" }, 2),
    toolCall("get_ticket", { id: "T-1001" }, 3),
    toolCall("search_tickets", { query: "scope attack" }, 4),
    toolCall("crm_get_account", { account_id: "acc_1001" }, 5),
    toolCall("crm_search_accounts", { query: "Scope Attack" }, 6),
  ];
  const res = await post(server.url, calls, bearer(WRITE));
  expect(res.status).toBe(200);
  return (res.json as Array<{ id: number; result: RpcResult }>).map((a) => [
    a.id,
    a.result.structuredContent ?? a.result.content,
  ]);
}

describe("secrets in logs", () => {
  it("no token that was sent, forged or real, appears in the server's log", async () => {
    const logs = server.stderr();
    expect(logs).toContain('"msg":"request"');
    for (const token of [WRITE, READ, ...sentTokens]) expect(logs).not.toContain(token);
  });
});
