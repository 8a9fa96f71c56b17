import {
  type ClientCapabilities,
  CreateMessageResultSchema,
  ElicitResultSchema,
  ListRootsResultSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import { missingCapability } from "./envelope.js";
import { JsonRpcCode, JsonRpcError } from "./jsonrpc-error.js";
import type { RequestStateCodec, StateBinding } from "./request-state.js";
import type { CancelSignal } from "./run-tool.js";

/** The requests a server may put in an `input_required` result (2026-07-28 MRTR). */
export type InputMethod = "elicitation/create" | "sampling/createMessage" | "roots/list";

const KINDS: Record<InputMethod, { key: string; capability: "elicitation" | "sampling" | "roots"; what: string }> = {
  "elicitation/create": { key: "elicitation", capability: "elicitation", what: "ask the user (elicitation)" },
  "sampling/createMessage": { key: "sampling", capability: "sampling", what: "ask the client's model (sampling)" },
  "roots/list": { key: "roots", capability: "roots", what: "list the client's roots" },
};

const SCHEMAS: Record<InputMethod, z.ZodType> = {
  "elicitation/create": ElicitResultSchema,
  "sampling/createMessage": CreateMessageResultSchema,
  "roots/list": ListRootsResultSchema,
};

/**
 * One run of a handler for a 2026-07-28 request. The handler's questions to the client are
 * numbered in the order it asks them (`elicitation-1`, `sampling-1`, …): a question answered in
 * `inputResponses` (or in an earlier round's state) returns its answer; an unanswered one is
 * recorded and stops the run, and the request answers `input_required`. The client retries with
 * the answers and the handler runs again from the start, asking the same questions in the same order.
 */
export class InputRound implements CancelSignal {
  /** Questions asked in this run that have no answer yet, by key (made on the first one: most calls ask none). */
  #asked: Map<string, { method: InputMethod; params?: unknown }> | undefined;
  /** Set when the run cannot go on: a capability the client lacks, or a malformed answer. */
  failure: JsonRpcError | undefined;
  readonly answers: Readonly<Record<string, unknown>>;
  readonly #capabilities: ClientCapabilities;
  #counts: Map<string, number> | undefined;
  #outer: CancelSignal | undefined;
  #listeners: Set<() => void> | undefined;
  #stopped = false;

  constructor(answers: Record<string, unknown>, capabilities: ClientCapabilities, outer?: CancelSignal) {
    this.answers = answers;
    this.#capabilities = capabilities;
    this.#outer = outer;
  }

  get asked(): ReadonlyMap<string, { method: InputMethod; params?: unknown }> {
    return this.#asked ?? new Map();
  }

  /** Whether the run ended on a question the client must answer first. */
  get needsInput(): boolean {
    return this.#asked !== undefined && this.failure === undefined;
  }

  ask(method: InputMethod, params?: unknown, key?: string): Promise<unknown> {
    const kind = KINDS[method];
    if (key === undefined) {
      this.#counts ??= new Map();
      const n = (this.#counts.get(kind.key) ?? 0) + 1;
      this.#counts.set(kind.key, n);
      key = `${kind.key}-${n}`;
    }
    if (!this.#allows(method, params)) {
      this.failure ??= missingCapability(kind.capability, kind.what);
      return this.#stop();
    }
    if (Object.hasOwn(this.answers, key)) {
      const parsed = SCHEMAS[method].safeParse(this.answers[key]);
      if (parsed.success) return Promise.resolve(parsed.data);
      this.failure ??= new JsonRpcError(
        JsonRpcCode.InvalidParams,
        `Invalid params: inputResponses["${key}"] is not a valid ${method} result (${parsed.error.issues
          .slice(0, 3)
          .map((i) => `${i.path.join(".") || "value"}: ${i.message}`)
          .join("; ")})`,
      );
      return this.#stop();
    }
    this.#asked ??= new Map();
    this.#asked.set(key, params === undefined ? { method } : { method, params });
    return this.#stop();
  }

  #allows(method: InputMethod, params: unknown): boolean {
    const caps = this.#capabilities as Record<string, unknown>;
    const kind = KINDS[method];
    if (typeof caps[kind.capability] !== "object" || caps[kind.capability] === null) return false;
    if (method === "elicitation/create" && (params as { mode?: unknown } | undefined)?.mode === "url") {
      const elicitation = caps.elicitation as { url?: unknown };
      return typeof elicitation.url === "object" && elicitation.url !== null;
    }
    return true;
  }

  /**
   * The run goes on as a task (`ctx.startTask()`): from now on it stops when `next` aborts (the
   * task's cancellation), not when the request that ran this round ends. Its questions no longer
   * come here.
   */
  handOver(next: CancelSignal): void {
    const outer = this.#outer;
    this.#outer = next;
    for (const listener of this.#listeners ?? []) {
      outer?.removeEventListener("abort", listener);
      next.addEventListener("abort", listener, { once: true });
    }
  }

  /** Settles when the run stops on a question (for handlers that are not raced by runTool, such as prompts). */
  get stopped(): Promise<void> {
    return new Promise((resolve) => {
      if (this.#stopped) resolve();
      else this.#listen(() => resolve());
    });
  }

  /** Ends the run: the handler's pending question never settles, and the call stops here. */
  #stop(): Promise<never> {
    if (!this.#stopped) {
      this.#stopped = true;
      for (const listener of [...(this.#listeners ?? [])]) listener();
    }
    return new Promise<never>(() => {});
  }

  // CancelSignal: the call listens to this instead of the transport's signal, so either stops it.
  get aborted(): boolean {
    return this.#stopped || this.#outer?.aborted === true;
  }

  get reason(): unknown {
    return this.#outer?.aborted ? this.#outer.reason : undefined;
  }

  addEventListener(_type: "abort", listener: () => void): void {
    this.#listen(listener);
    this.#outer?.addEventListener("abort", listener, { once: true });
  }

  #listen(listener: () => void): void {
    this.#listeners ??= new Set();
    this.#listeners.add(listener);
  }

  removeEventListener(_type: "abort", listener: () => void): void {
    this.#listeners?.delete(listener);
    this.#outer?.removeEventListener("abort", listener);
  }
}

/** What one round of a multi round-trip request starts from. */
export interface RoundRequest {
  codec: RequestStateCodec;
  /** What the state is bound to; made only when a state is read or sealed (most calls ask nothing). */
  binding: () => StateBinding;
  /** The request's `requestState`, if any. */
  requestState: unknown;
  /** The request's `inputResponses`, if any. */
  inputResponses: Record<string, unknown> | undefined;
  capabilities: ClientCapabilities;
  signal?: CancelSignal;
}

/** The answer of a round that ended on questions. */
export interface InputRequiredResult {
  resultType: "input_required";
  inputRequests: Record<string, { method: InputMethod; params?: unknown }>;
  requestState: string;
}

/**
 * One round of a 2026-07-28 multi round-trip request: the answers from the signed state and
 * `inputResponses`, a run of the handler, then its result, or `input_required` with the
 * questions it asked and a new state that carries every answer so far.
 */
export async function runInRounds<T>(
  request: RoundRequest,
  run: (round: InputRound) => Promise<T>,
): Promise<T | InputRequiredResult> {
  const { codec, binding, requestState, inputResponses } = request;
  const earlier = requestState === undefined ? undefined : codec.open(requestState, binding());
  const answers = earlier === undefined ? (inputResponses ?? {}) : { ...earlier, ...inputResponses };
  const round = new InputRound(answers, request.capabilities, request.signal);
  const result = await run(round);
  if (round.failure) throw round.failure;
  if (!round.needsInput) return result;
  const bound = binding();
  const sealed = codec.seal(bound, round.answers as Record<string, unknown>);
  if (sealed === undefined) {
    throw new JsonRpcError(
      JsonRpcCode.InvalidParams,
      `Invalid params: the answers to ${bound.target}'s questions are larger than ${codec.maxBytes} bytes; answer with less`,
    );
  }
  return { resultType: "input_required", inputRequests: Object.fromEntries(round.asked), requestState: sealed };
}
