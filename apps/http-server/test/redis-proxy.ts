import { createServer, type Socket, connect as tcpConnect } from "node:net";

/**
 * A TCP proxy in front of the test Redis that can stop forwarding (a frozen Redis: commands are
 * held, as a SIGSTOPped server would hold them, and sent on resume) or answer every command with
 * an OOM error, without touching the Redis other tests share.
 */
export interface RedisProxy {
  url: string;
  /** Commands received from clients since the last `reset`. */
  readonly commands: number;
  forward(): void;
  pause(): void;
  oom(): void;
  resetCount(): void;
  close(): Promise<void>;
}

export const OOM_REPLY = "-OOM command not allowed when used memory > 'maxmemory'.\r\n";

/** The length of the first complete RESP command (an array of bulk strings) in `buf`, or 0. */
function commandLength(buf: Buffer): number {
  if (buf.length === 0 || buf[0] !== 0x2a) return 0;
  let at = buf.indexOf("\r\n");
  if (at < 0) return 0;
  const count = Number(buf.subarray(1, at).toString());
  let pos = at + 2;
  for (let i = 0; i < count; i++) {
    at = buf.indexOf("\r\n", pos);
    if (at < 0) return 0;
    const len = Number(buf.subarray(pos + 1, at).toString());
    pos = at + 2 + len + 2;
    if (pos > buf.length) return 0;
  }
  return pos;
}

export async function startRedisProxy(target: string): Promise<RedisProxy> {
  const { hostname, port } = new URL(target);
  let mode: "forward" | "pause" | "oom" = "forward";
  let commands = 0;
  const held: { upstream: Socket; frame: Buffer }[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = tcpConnect(Number(port || 6379), hostname);
    sockets.add(client).add(upstream);
    let pending = Buffer.alloc(0);
    client.on("data", (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (let len = commandLength(pending); len > 0; len = commandLength(pending)) {
        const frame = pending.subarray(0, len);
        pending = pending.subarray(len);
        commands++;
        if (mode === "forward") upstream.write(frame);
        else if (mode === "pause") held.push({ upstream, frame });
        else client.write(OOM_REPLY);
      }
    });
    upstream.on("data", (chunk) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("close", end).on("error", end);
    upstream.on("close", end).on("error", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  return {
    url: `redis://127.0.0.1:${address.port}`,
    get commands() {
      return commands;
    },
    forward() {
      mode = "forward";
      for (const { upstream, frame } of held.splice(0)) if (!upstream.destroyed) upstream.write(frame);
    },
    pause() {
      mode = "pause";
    },
    oom() {
      mode = "oom";
    },
    resetCount() {
      commands = 0;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
