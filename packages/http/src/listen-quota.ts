/** Open subscriptions/listen streams one client (a credential, or an address without auth) may hold. */
export const DEFAULT_LISTENS_PER_CLIENT = 16;

/**
 * Counts each client's open subscriptions/listen streams. A stream holds a connection for as long
 * as the client likes, so without a cap one read-only token could take every file descriptor.
 */
export class ListenQuota {
  readonly perClient: number;
  readonly #open = new Map<string, number>();

  constructor(perClient = DEFAULT_LISTENS_PER_CLIENT) {
    if (!Number.isInteger(perClient) || perClient < 1) {
      throw new TypeError(`listensPerClient must be a whole number of at least 1, such as 16 (got ${perClient})`);
    }
    this.perClient = perClient;
  }

  /** A slot for one more stream of `client` (call the result once when the stream ends), or undefined at the cap. */
  take(client: string): (() => void) | undefined {
    const held = this.#open.get(client) ?? 0;
    if (held >= this.perClient) return undefined;
    this.#open.set(client, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#open.get(client) ?? 1) - 1;
      if (left <= 0) this.#open.delete(client);
      else this.#open.set(client, left);
    };
  }
}
