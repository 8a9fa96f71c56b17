/** A change a listening client may want to hear about. */
export type ChangeEvent =
  | { type: "tools/list_changed" }
  | { type: "prompts/list_changed" }
  /** `pack`: the pack whose tool changed the list; only callers that may see one of its resources hear it. */
  | { type: "resources/list_changed"; pack?: string }
  | { type: "resources/updated"; uri: string };

/**
 * Where changes are published and heard. The default lives in one process; a shared one (Redis
 * in @toolshed/http-server) lets a write on one instance reach listeners on every instance.
 */
export interface ChangeBus {
  publish(event: ChangeEvent): void;
  /** Calls `listener` for every event until the returned function is called. */
  subscribe(listener: (event: ChangeEvent) => void): () => void;
  close?(): Promise<void>;
}

/** Changes heard in this process only. */
export class LocalChangeBus implements ChangeBus {
  readonly #listeners = new Set<(event: ChangeEvent) => void>();

  get listeners(): number {
    return this.#listeners.size;
  }

  publish(event: ChangeEvent): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch {
        // One broken listener must not keep the event from the others.
      }
    }
  }

  subscribe(listener: (event: ChangeEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
