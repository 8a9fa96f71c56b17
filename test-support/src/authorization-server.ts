import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** The client credentials the test authorization server accepts unless told otherwise. */
export const INTROSPECTION_CLIENT_ID = "toolshed-rs";
/** Has a colon, a space and symbols, so a test sees whether Basic credentials are form-encoded. */
export const INTROSPECTION_CLIENT_SECRET = "s3cret:with spaces&symbols";

/** One request the introspection endpoint received, as it was sent. */
export interface IntrospectionCall {
  token: string;
  tokenTypeHint: string | null;
  contentType: string | undefined;
  /** The Basic credentials, decoded as RFC 6749 section 2.3.1 says. */
  clientId: string;
  clientSecret: string;
}

/**
 * What the endpoint answers a token with: an object is sent as JSON with status 200; a function
 * writes the response itself (a 500, a redirect, HTML, a body that never ends).
 */
export type IntrospectionAnswer = (token: string, form: URLSearchParams) => unknown | Promise<unknown>;

export interface AuthorizationServerOptions {
  /** The client id the endpoint accepts; default INTROSPECTION_CLIENT_ID. */
  clientId?: string;
  /** The client secret the endpoint accepts; default INTROSPECTION_CLIENT_SECRET. */
  clientSecret?: string;
}

export interface AuthorizationServer {
  /** The endpoint's URL, http://127.0.0.1:PORT/introspect. */
  url: string;
  /** Every request received, in order, including refused ones. */
  calls: IntrospectionCall[];
  /** Stops the server, cutting open connections so a hanging answer does not hold the test. */
  close(): Promise<void>;
}

/**
 * An authorization server's RFC 7662 introspection endpoint on 127.0.0.1. `answer(token, form)`
 * decides what each token gets (default: `{ active: false }`); requests with other client
 * credentials get 401 invalid_client, as an authorization server answers them.
 */
export async function startAuthorizationServer(
  answer: IntrospectionAnswer = () => ({ active: false }),
  options: AuthorizationServerOptions = {},
): Promise<AuthorizationServer> {
  const clientId = options.clientId ?? INTROSPECTION_CLIENT_ID;
  const clientSecret = options.clientSecret ?? INTROSPECTION_CLIENT_SECRET;
  const calls: IntrospectionCall[] = [];
  const sockets = new Set<Socket>();
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const form = new URLSearchParams(body);
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "";
    const decoded = Buffer.from(basic, "base64").toString("utf8");
    // The id cannot hold a raw colon (it is form-encoded), so the first colon separates the two.
    const colon = decoded.indexOf(":");
    const call: IntrospectionCall = {
      token: form.get("token") ?? "",
      tokenTypeHint: form.get("token_type_hint"),
      contentType: req.headers["content-type"],
      clientId: decodeForm(colon < 0 ? decoded : decoded.slice(0, colon)),
      clientSecret: decodeForm(colon < 0 ? "" : decoded.slice(colon + 1)),
    };
    calls.push(call);
    if (req.method !== "POST" || req.url !== "/introspect") {
      res.writeHead(404).end();
      return;
    }
    if (call.clientId !== clientId || call.clientSecret !== clientSecret) {
      res.writeHead(401, { "content-type": "application/json" }).end('{"error":"invalid_client"}');
      return;
    }
    const result = await answer(call.token, form);
    if (typeof result === "function") (result as (res: ServerResponse) => void)(res);
    else res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(result));
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/introspect`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function decodeForm(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, " "));
  } catch {
    return value; // not form-encoded: compare it as sent
  }
}
