import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { ToolshedServer } from "../src/index.js";

export interface RawResponse {
  id: string | number | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/** Sends JSON-RPC messages to a server without the SDK client's own checks, to test what the server answers. */
export async function rawConnection(server: ToolshedServer) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const waiting = new Map<string | number, (r: RawResponse) => void>();
  const notifications: JSONRPCMessage[] = [];
  clientSide.onmessage = (message) => {
    const m = message as unknown as RawResponse & { method?: string };
    if (m.id !== undefined && m.id !== null && waiting.has(m.id)) {
      waiting.get(m.id)?.(m);
      waiting.delete(m.id);
    } else notifications.push(message);
  };
  await clientSide.start();
  await server.connect(serverSide);
  let next = 1;
  return {
    notifications,
    request(method: string, params?: unknown): Promise<RawResponse> {
      const id = next++;
      const answer = new Promise<RawResponse>((resolve) => waiting.set(id, resolve));
      const message = { jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) };
      void clientSide.send(message as unknown as JSONRPCMessage);
      return answer;
    },
    close: () => clientSide.close(),
  };
}
