import { brandErrorClass } from "@toolshed/errors/internal";
/**
 * Thrown when a tool, resource, prompt or pack is defined wrongly (C13). The message names the
 * definition and the rule, so start-up fails with something that can be fixed.
 */
export class DefinitionError extends Error {
  readonly definition: string;
  readonly rule: string;
  constructor(definition: string, rule: string, message: string) {
    super(`${definition}: ${message} [${rule}]`);
    this.name = "DefinitionError";
    this.definition = definition;
    this.rule = rule;
  }
}
brandErrorClass(DefinitionError, "DefinitionError");
