import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import type { ToolshedServer } from "./server.js";

export interface ConnectInMemoryOptions {
  clientName?: string;
  capabilities?: ClientCapabilities;
  /** Passed as `authInfo` with every request, as an authenticating transport would. */
  authInfo?: { token: string; clientId: string; scopes: string[]; expiresAt?: number };
}

/** A real SDK `Client` connected to the server in memory; for tests. `client.close()` ends both sides. */
export async function connectInMemory(server: ToolshedServer, options: ConnectInMemoryOptions = {}): Promise<Client> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  if (options.authInfo) {
    const authInfo = options.authInfo;
    const send = clientTransport.send.bind(clientTransport);
    clientTransport.send = (message, opts) => send(message, { ...opts, authInfo });
  }
  await server.connect(serverTransport);
  const client = new Client(
    { name: options.clientName ?? "toolshed-test-client", version: "0.0.0" },
    { capabilities: options.capabilities ?? {} },
  );
  await client.connect(clientTransport);
  return client;
}
