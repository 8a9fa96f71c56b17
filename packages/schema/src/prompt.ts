import type { GetPromptResult, PromptMessage } from "@modelcontextprotocol/sdk/types.js";
import type { ParseResult } from "./arguments.js";
import { checkName, checkText, descriptionOf } from "./checks.js";
import type { PromptContext } from "./context.js";
import { DefinitionError } from "./definition-error.js";
import type { JsonSchema } from "./json-schema.js";
import { checkListingExtras, type ListingExtras } from "./listing-extras.js";
import {
  compileObjectInput,
  DESCRIBE,
  type InputValues,
  type ObjectInput,
  parseStringValues,
  type SchemaKind,
} from "./object-input.js";
import type { Completer } from "./resource.js";
import { checkRequiredScopes, type RequiredScopes } from "./scopes.js";

type MaybePromise<T> = T | Promise<T>;

/** What a prompt renders to: one user message, a list of messages, or a full result. */
export type PromptBody = string | PromptMessage[] | GetPromptResult;

export interface PromptConfig<A extends ObjectInput> extends ListingExtras {
  name: string;
  title?: string;
  description: string;
  /**
   * String arguments (prompts/get sends strings), each with a description: a Zod object, a JSON
   * Schema document (plain, or `jsonSchema<T>(document)`) or a Standard Schema with JSON Schema.
   */
  args: A;
  complete?: { [K in keyof InputValues<A>]?: Completer };
  /** OAuth scopes a caller's token must all hold to see and get this prompt; its pack's apply too. */
  requiredScopes?: RequiredScopes;
  /** May ask the client through `ctx` (2026-07-28: the prompt answers `input_required` and renders again). */
  render: (args: InputValues<A>, ctx: PromptContext) => MaybePromise<PromptBody>;
}

/** One argument as published in prompts/list. */
export interface PromptArgumentListing {
  name: string;
  description?: string;
  required: boolean;
}

export interface PromptDefinition<A extends ObjectInput = ObjectInput>
  extends Readonly<Omit<PromptConfig<A>, "requiredScopes">> {
  readonly kind: "prompt";
  /** How `args` is written: Zod, a JSON Schema document or a Standard Schema. */
  readonly schemaKind: SchemaKind;
  /** Scopes a token needs for this prompt (its pack's apply too); [] when none. */
  readonly requiredScopes: RequiredScopes;
  readonly arguments: readonly PromptArgumentListing[];
  parseArgs(args: unknown): ParseResult<InputValues<A>>;
}

/** A prompt template whose arguments its schema validates, with completion per argument. */
export function definePrompt<A extends ObjectInput>(config: PromptConfig<A>): PromptDefinition<A> {
  const label = `Prompt "${config.name}"`;
  checkName(label, config.name);
  checkText(label, "description", config.description);
  const requiredScopes = checkRequiredScopes(label, config.requiredScopes);
  const input = compileObjectInput(label, "args", "topic", config.args);
  const published: JsonSchema = input.published;
  const properties = (published.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set(Array.isArray(published.required) ? (published.required as string[]) : []);
  const fix = input.kind === "zod" ? '.describe("…")' : DESCRIBE[input.kind];
  const args: PromptArgumentListing[] = [];
  for (const [name, schema] of Object.entries(properties)) {
    const description = descriptionOf(schema);
    if (description === undefined) {
      throw new DefinitionError(label, "C13", `argument "${name}" has no description; add ${fix}`);
    }
    // Optional and defaulted arguments both accept being left out (neither is in the input's required).
    args.push({ name, description, required: required.has(name) });
  }
  const names = new Set(args.map((a) => a.name));
  for (const key of Object.keys(config.complete ?? {})) {
    if (!names.has(key)) throw new DefinitionError(label, "C13", `complete names "${key}", which is not an argument`);
  }
  const extras = checkListingExtras(label, config);
  return Object.freeze({
    ...config,
    ...extras,
    kind: "prompt" as const,
    schemaKind: input.kind,
    requiredScopes,
    arguments: args,
    parseArgs: (values: unknown) => parseStringValues(input, values) as ParseResult<InputValues<A>>,
  });
}

/** Normalises what a prompt rendered into a prompts/get result. */
export function toPromptResult(prompt: PromptDefinition, body: PromptBody): GetPromptResult {
  if (typeof body === "string") {
    return { description: prompt.description, messages: [{ role: "user", content: { type: "text", text: body } }] };
  }
  if (Array.isArray(body)) return { description: prompt.description, messages: body };
  return body;
}
