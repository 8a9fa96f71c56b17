import { randomUUID } from "node:crypto";
import type { Logger } from "@toolshed/schema";
import { type ChangeBus, type ChangeEvent, LocalChangeBus } from "@toolshed/server";

export interface RedisChangeBusOptions {
  /** redis:// or rediss:// URL. */
  url: string;
  /** Pub/sub channel; instances that serve the same data share it (default `toolshed:changes`). */
  channel?: string;
  logger?: Logger;
  /** How long start-up waits for the subscription before serving anyway (default 3000 ms). */
  connectWaitMs?: number;
}

export const DEFAULT_CHANGES_CHANNEL = "toolshed:changes";

const TYPES = new Set(["tools/list_changed", "prompts/list_changed", "resources/list_changed", "resources/updated"]);

/** An event from another instance, or undefined when the message is not one. */
function eventOf(message: string, origin: string): ChangeEvent | undefined {
  try {
    const parsed = JSON.parse(message) as { o?: unknown; e?: { type?: unknown; uri?: unknown; pack?: unknown } };
    const e = parsed.e;
    if (parsed.o === origin || !e || !TYPES.has(String(e.type))) return undefined;
    if (e.type === "resources/updated") return typeof e.uri === "string" ? { type: e.type, uri: e.uri } : undefined;
    if (e.type === "resources/list_changed" && typeof e.pack === "string") return { type: e.type, pack: e.pack };
    return { type: e.type } as ChangeEvent;
  } catch {
    return undefined;
  }
}

/**
 * Changes shared through Redis pub/sub: a write on one instance reaches subscriptions/listen streams
 * and 2025 subscribers on every instance. Listeners here hear local events at once; other instances'
 * events arrive through Redis. Redis down: events stay on their instance (logged once) until it is back.
 */
export async function createRedisChangeBus(
  options: RedisChangeBusOptions,
): Promise<ChangeBus & { close(): Promise<void> }> {
  const { Redis } = await import("ioredis");
  const logger = options.logger;
  const channel = options.channel ?? DEFAULT_CHANGES_CHANNEL;
  const origin = randomUUID();
  const settings = {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    retryStrategy: (attempt: number) => Math.min(attempt * 200, 2_000),
  };
  const publisher = new Redis(options.url, settings);
  // A subscribed connection can do nothing else; it queues its SUBSCRIBE until it is connected.
  const subscriber = new Redis(options.url, { ...settings, enableOfflineQueue: true });
  const local = new LocalChangeBus();
  let healthy = true;
  const onError = (error: Error) => {
    if (!healthy) return;
    healthy = false;
    logger?.warn(
      { err: error.message },
      "Redis is unreachable: changes reach this instance's listeners only until it is back",
    );
  };
  publisher.on("error", onError);
  subscriber.on("error", onError);
  subscriber.on("ready", () => {
    if (!healthy) logger?.info({}, "Redis is back: changes are shared again");
    healthy = true;
  });
  subscriber.on("message", (from: string, message: string) => {
    if (from !== channel) return;
    const event = eventOf(message, origin);
    if (event) local.publish(event);
  });
  const subscribed = subscriber.subscribe(channel).catch(onError);
  await Promise.race([
    subscribed,
    new Promise((resolve) => setTimeout(resolve, options.connectWaitMs ?? 3_000).unref()),
  ]);
  return {
    publish(event) {
      local.publish(event);
      publisher.publish(channel, JSON.stringify({ o: origin, e: event })).catch(onError);
    },
    subscribe: (listener) => local.subscribe(listener),
    async close() {
      publisher.disconnect();
      subscriber.disconnect();
    },
  };
}
