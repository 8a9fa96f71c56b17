import type { AuthInfo, Logger, Pack, TextFormat } from "@toolshed/schema";
import type { CanAccess } from "../access.js";
import type { MiddlewareStack } from "../middleware.js";
import type { CallOutcome } from "../run-tool.js";
import type { AccessControl } from "./access-control.js";
import type { Registry } from "./registry.js";

// What the runtime's modules share: its options, the registry of definitions and who may see them.

/** What a tools/call ended as: the outcome class, or `input_required` (a 2026-07-28 round that asks the client). */
export type ToolCallOutcome = CallOutcome | "input_required";

/** Hears the outcome of each tools/call the runtime answers with a result (the "tool call" log line's `outcome`). */
export type ToolOutcomeListener = (name: string, outcome: ToolCallOutcome) => void;

/** What a request may see and do. */
export interface RequestView {
  /** Only read-only tools are listed and callable (C14). */
  readOnly: boolean;
}

export interface RuntimeOptions {
  packs: readonly Pack[];
  readOnly?: boolean;
  logger: Logger;
  textFormat?: TextFormat;
  /** Server-wide call timeout in ms (default 30 000); a tool's own timeout wins. 0 turns it off. */
  timeoutMs?: number;
  /**
   * Largest JSON of one tool result, resources/read or prompts/get answer in bytes (default 4 MiB,
   * DEFAULT_MAX_RESULT_BYTES); a larger tool result is answered with a `too_large` tool error, a
   * larger read or prompt with JSON-RPC -32603 (`data.code` "too_large"). 0 turns the check off.
   */
  maxResultBytes?: number;
  /** Whether a request with these credentials is limited to read-only tools (C14). */
  isReadOnlyRequest?: (authInfo: AuthInfo | undefined) => boolean;
  /**
   * Decides per caller and definition what scopes cannot: false hides the definition (lists leave it
   * out, calls answer as if it did not exist). Called with `undefined` for callers without credentials.
   */
  canAccess?: CanAccess;
  /** Middleware around calls (and, read by the protocol core, around requests). */
  middleware?: MiddlewareStack;
  /** Lax coercion of tool arguments that fail as sent (default true; a tool's `coerce: false` wins). */
  coerce?: boolean;
  /** Whether coercions are counted in the OpenTelemetry metric (default true). */
  telemetry?: boolean;
}

/** The parts every operation module reads. */
export interface RuntimeParts {
  readonly options: RuntimeOptions;
  readonly registry: Registry;
  readonly access: AccessControl;
  readonly logger: Logger;
  readonly textFormat: TextFormat;
  readonly middleware: MiddlewareStack | undefined;
}
