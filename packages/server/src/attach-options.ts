import type { Logger, TextFormat } from "@toolshed/schema";
import type { RequestStateOptions } from "./request-state.js";

/** Options of `attachPack`, on both SDK lines. */
export interface AttachPackOptions {
  logger?: Logger;
  textFormat?: TextFormat;
  /** Call timeout in ms for tools without their own (default 30 000). */
  timeoutMs?: number;
  /** Hears the pack's resource updates (`ctx.resourceUpdated`), e.g. to notify subscribers you track. */
  onResourceUpdated?: (uri: string) => void;
  /**
   * Lax coercion of tool arguments that fail as sent (default true), as `createServer`'s `coerce`:
   * logged ("arguments coerced") and counted; a tool's own `coerce: false` wins.
   */
  coerce?: boolean;
  /**
   * SDK v2 only: signing of the `requestState` that carries a tool's questions and answers between
   * rounds. Instances behind one load balancer must share `secret`; without one each process makes its own.
   */
  requestState?: RequestStateOptions;
}
