import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, exportSPKI, generateKeyPair, type JWTPayload, SignJWT } from "jose";

export interface SignOptions {
  issuer: string;
  audience: string;
  /** Seconds since the epoch, or a jose time span such as "10m". */
  expiresIn?: string | number;
  notBefore?: string | number;
  /** Signed by a key the JWKS does not hold, under the JWKS key's id. */
  strangerKey?: boolean;
  kid?: string;
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** A JWKS endpoint on 127.0.0.1 with one RS256 key, and signers for good and forged tokens. */
export async function startJwks() {
  const { publicKey, privateKey } = await generateKeyPair("RS256");
  const stranger = await generateKeyPair("RS256");
  const jwk = { ...(await exportJWK(publicKey)), kid: "test-key", alg: "RS256", use: "sig" };
  const publicPem = await exportSPKI(publicKey);
  let fetches = 0;
  const server: Server = createServer((req, res) => {
    if (req.url === "/jwks.json") {
      fetches++;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ keys: [jwk] }));
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  const sign = (claims: JWTPayload, options: SignOptions) => {
    let jwt = new SignJWT(claims)
      .setProtectedHeader({ alg: "RS256", kid: options.kid ?? "test-key", typ: "JWT" })
      .setIssuer(options.issuer)
      .setAudience(options.audience)
      .setSubject("user-1")
      .setIssuedAt()
      .setExpirationTime(options.expiresIn ?? "10m");
    if (options.notBefore !== undefined) jwt = jwt.setNotBefore(options.notBefore);
    return jwt.sign(options.strangerKey ? stranger.privateKey : privateKey);
  };

  /** `alg: none`: valid claims, no signature at all. */
  const unsigned = (claims: JWTPayload, options: SignOptions) => {
    const now = Math.floor(Date.now() / 1000);
    const payload = { sub: "user-1", iss: options.issuer, aud: options.audience, iat: now, exp: now + 600, ...claims };
    return `${b64({ alg: "none", typ: "JWT" })}.${b64(payload)}.`;
  };

  /** Algorithm confusion: HS256 keyed with the server's public key, under the RSA key's id. */
  const hmacWithPublicKey = (claims: JWTPayload, options: SignOptions) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: "HS256", kid: "test-key", typ: "JWT" })
      .setIssuer(options.issuer)
      .setAudience(options.audience)
      .setSubject("user-1")
      .setIssuedAt()
      .setExpirationTime("10m")
      .sign(new TextEncoder().encode(publicPem));

  return {
    url: `http://127.0.0.1:${port}/jwks.json`,
    sign,
    unsigned,
    hmacWithPublicKey,
    /** How often the server fetched the key set. */
    fetches: () => fetches,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type Jwks = Awaited<ReturnType<typeof startJwks>>;
