import { createHmac, generateKeyPair, type KeyObject, sign as rsaSign } from "node:crypto";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { promisify } from "node:util";

const makeKeyPair = promisify(generateKeyPair);

/** What a token is signed with and says; times are seconds since the epoch, or spans such as "10m", "-1h", "30s". */
export interface JwtSignOptions {
  issuer: string;
  audience: string;
  /** `exp` (default "10m"). */
  expiresIn?: string | number;
  /** `nbf` (none by default). */
  notBefore?: string | number;
  /** The sub claim (default user-1); null leaves it out. */
  subject?: string | null;
  /** The key id in the header (default test-key); the token is signed with that key when the fixture has it. */
  kid?: string;
  /** Signed by a key the fixture never publishes, whatever the kid says. */
  strangerKey?: boolean;
}

/**
 * How the key-set endpoint answers: `ok` the published keys; `error` HTTP 500; `hang` never answers;
 * `huge` a JSON body that never ends (64 MiB, sent as fast as it is read); `not-json` an HTML page;
 * `redirect` a 302 to the same keys elsewhere.
 */
export type JwksBehaviour = "ok" | "error" | "hang" | "huge" | "not-json" | "redirect";

export interface JwksServer {
  /** http://127.0.0.1:PORT/jwks.json */
  url: string;
  /** A JWT signed with RS256 (see JwtSignOptions). */
  sign(claims: Record<string, unknown>, options: JwtSignOptions): Promise<string>;
  /** `alg: none`: valid claims, no signature at all. */
  unsigned(claims: Record<string, unknown>, options: JwtSignOptions): string;
  /** Algorithm confusion: HS256 keyed with the published public key (PEM), under its key id. */
  hmacWithPublicKey(claims: Record<string, unknown>, options: JwtSignOptions): Promise<string>;
  /** Makes a new RS256 key under `kid`; it is in the key set only once published (default: at once). */
  addKey(kid: string, options?: { publish?: boolean }): Promise<void>;
  /** Puts a key made by addKey into the key set. */
  publish(kid: string): void;
  /** From now on, answers key-set requests this way. */
  behave(behaviour: JwksBehaviour): void;
  /** How many key-set requests arrived (every behaviour counts). */
  fetches(): number;
  /** Stops the server, cutting open connections so a hanging answer does not hold the test. */
  close(): Promise<void>;
}

interface Key {
  privateKey: KeyObject;
  publicKey: KeyObject;
  jwk: Record<string, unknown>;
}

const HUGE_BYTES = 64 * 1024 * 1024;
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** A JWKS endpoint on 127.0.0.1 holding one RS256 key, `test-key`, with signers and failure modes. */
export async function startJwks(): Promise<JwksServer> {
  const keys = new Map<string, Key>();
  const published = new Set<string>();
  const addKey = async (kid: string, options: { publish?: boolean } = {}) => {
    const { publicKey, privateKey } = await makeKeyPair("rsa", { modulusLength: 2048 });
    const jwk = { ...publicKey.export({ format: "jwk" }), kid, alg: "RS256", use: "sig" };
    keys.set(kid, { privateKey, publicKey, jwk });
    if (options.publish !== false) published.add(kid);
  };
  await addKey("test-key");
  const stranger = await makeKeyPair("rsa", { modulusLength: 2048 });
  let behaviour: JwksBehaviour = "ok";
  let fetches = 0;

  const keySet = () => JSON.stringify({ keys: [...published].map((kid) => keys.get(kid)?.jwk) });
  const server: Server = createServer((req, res) => {
    const path = req.url ?? "";
    if (path === "/moved/jwks.json") {
      res.writeHead(200, { "content-type": "application/json" }).end(keySet());
      return;
    }
    if (path !== "/jwks.json") {
      res.writeHead(404).end();
      return;
    }
    fetches++;
    switch (behaviour) {
      case "ok":
        res.writeHead(200, { "content-type": "application/json" }).end(keySet());
        return;
      case "error":
        res.writeHead(500, { "content-type": "text/plain" }).end("internal error");
        return;
      case "hang":
        return;
      case "huge":
        sendHuge(res);
        return;
      case "not-json":
        res.writeHead(200, { "content-type": "text/html" }).end("<html><body>Sign in</body></html>");
        return;
      case "redirect":
        res.writeHead(302, { location: "/moved/jwks.json" }).end();
        return;
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  const claimsOf = (claims: Record<string, unknown>, options: JwtSignOptions) => {
    const now = Math.floor(Date.now() / 1000);
    const payload: Record<string, unknown> = { ...claims, iss: options.issuer, aud: options.audience, iat: now };
    const subject = options.subject === undefined ? "user-1" : options.subject;
    if (subject !== null) payload.sub = subject;
    payload.exp = timeOf(options.expiresIn ?? "10m", now);
    if (options.notBefore !== undefined) payload.nbf = timeOf(options.notBefore, now);
    return payload;
  };

  const testKey = () => keys.get("test-key") as Key;
  return {
    url: `http://127.0.0.1:${port}/jwks.json`,
    async sign(claims, options) {
      const kid = options.kid ?? "test-key";
      const key = options.strangerKey ? stranger.privateKey : (keys.get(kid) ?? testKey()).privateKey;
      const input = `${b64({ alg: "RS256", kid, typ: "JWT" })}.${b64(claimsOf(claims, options))}`;
      return `${input}.${rsaSign("sha256", Buffer.from(input), key).toString("base64url")}`;
    },
    unsigned(claims, options) {
      return `${b64({ alg: "none", typ: "JWT" })}.${b64(claimsOf(claims, options))}.`;
    },
    async hmacWithPublicKey(claims, options) {
      const pem = testKey().publicKey.export({ type: "spki", format: "pem" });
      const input = `${b64({ alg: "HS256", kid: "test-key", typ: "JWT" })}.${b64(claimsOf(claims, options))}`;
      return `${input}.${createHmac("sha256", pem).update(input).digest("base64url")}`;
    },
    addKey,
    publish(kid) {
      if (!keys.has(kid)) throw new Error(`no key ${kid}; make it with addKey first`);
      published.add(kid);
    },
    behave(next) {
      behaviour = next;
    },
    fetches: () => fetches,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Old name of the fixture's type, kept for the tests that use it. */
export type Jwks = JwksServer;

function timeOf(value: string | number, now: number): number {
  if (typeof value === "number") return value;
  const match = /^(-?\d+)\s*(s|m|h|d)$/.exec(value.trim());
  if (!match) throw new Error(`time span "${value}" is not a number with s, m, h or d`);
  const unit = { s: 1, m: 60, h: 3600, d: 86_400 }[match[2] as "s" | "m" | "h" | "d"];
  return now + Number(match[1]) * unit;
}

// Sent only as fast as the client reads, so a client that stops reading stops the server too.
function sendHuge(res: ServerResponse): void {
  res.writeHead(200, { "content-type": "application/json" });
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  let sent = 0;
  const more = () => {
    if (sent === 0) {
      res.write('{"keys":[');
      sent = 9;
    }
    while (sent < HUGE_BYTES && !res.destroyed) {
      sent += chunk.length;
      if (!res.write(chunk)) {
        res.once("drain", more);
        return;
      }
    }
    if (!res.destroyed) res.end("]}");
  };
  more();
}
