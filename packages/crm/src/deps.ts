import type { CrmBackend } from "./backend.js";
import type { BackendCaller } from "./call-backend.js";

/** What the pack's tools, resources and prompts are built from. */
export interface CrmDeps {
  backend: CrmBackend;
  /** Every backend call goes through it: deadline, abort signal, TimeoutError. */
  call: BackendCaller;
}
