import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from "jose";

/** A JWKS endpoint on 127.0.0.1 with one RSA key, and a signer for tokens with that key (or a stranger's). */
export async function startJwks() {
  const { publicKey, privateKey } = await generateKeyPair("RS256");
  const stranger = await generateKeyPair("RS256");
  const jwk = { ...(await exportJWK(publicKey)), kid: "test-key", alg: "RS256", use: "sig" };
  const server: Server = createServer((req, res) => {
    if (req.url === "/jwks.json") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ keys: [jwk] }));
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const sign = (
    claims: JWTPayload,
    options: {
      issuer: string;
      audience: string;
      expiresIn?: string | number;
      strangerKey?: boolean;
      /** The sub claim (default user-1); null leaves it out. */
      subject?: string | null;
    },
  ) => {
    let jwt = new SignJWT(claims)
      .setProtectedHeader({ alg: "RS256", kid: "test-key" })
      .setIssuer(options.issuer)
      .setAudience(options.audience)
      .setIssuedAt();
    if (options.subject !== null) jwt = jwt.setSubject(options.subject ?? "user-1");
    jwt = jwt.setExpirationTime(options.expiresIn ?? "10m");
    return jwt.sign(options.strangerKey ? stranger.privateKey : privateKey);
  };
  return {
    url: `http://127.0.0.1:${port}/jwks.json`,
    sign,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
