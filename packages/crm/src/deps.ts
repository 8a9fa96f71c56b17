import type { StoreCaller } from "./call-store.js";
import type { CrmStore } from "./store.js";

/** What the pack's tools, resources and prompts are built from. */
export interface CrmDeps {
  store: CrmStore;
  /** Every store call goes through it: deadline, abort signal, TimeoutError. */
  call: StoreCaller;
}
