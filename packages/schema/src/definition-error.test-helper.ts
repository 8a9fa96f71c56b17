import { expect } from "vitest";
import { DefinitionError } from "./definition-error.js";

/** The DefinitionError a definition throws, or a failure when it throws nothing or something else. */
export function definitionError(fn: () => unknown): DefinitionError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(DefinitionError);
    return e as DefinitionError;
  }
  throw new Error("expected a DefinitionError, nothing was thrown");
}
