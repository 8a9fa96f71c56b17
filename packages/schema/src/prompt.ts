import type { GetPromptResult, PromptMessage } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import { type ParseResult, parseArguments } from "./arguments.js";
import { checkName, checkText, descriptionOf } from "./checks.js";
import type { PromptContext } from "./context.js";
import { DefinitionError } from "./definition-error.js";
import { type JsonSchema, toPortableJsonSchema } from "./json-schema.js";
import { checkListingExtras, type ListingExtras } from "./listing-extras.js";
import type { Completer } from "./resource.js";
import { checkRequiredScopes, type RequiredScopes } from "./scopes.js";

type MaybePromise<T> = T | Promise<T>;
type ArgsObject = z.ZodObject<z.core.$ZodLooseShape>;

/** What a prompt renders to: one user message, a list of messages, or a full result. */
export type PromptBody = string | PromptMessage[] | GetPromptResult;

export interface PromptConfig<A extends ArgsObject> extends ListingExtras {
  name: string;
  title?: string;
  description: string;
  /** String arguments (prompts/get sends strings); each with a description. */
  args: A;
  complete?: { [K in keyof z.output<A>]?: Completer };
  /** OAuth scopes a caller's token must all hold to see and get this prompt; its pack's apply too. */
  requiredScopes?: RequiredScopes;
  /** May ask the client through `ctx` (2026-07-28: the prompt answers `input_required` and renders again). */
  render: (args: z.output<A>, ctx: PromptContext) => MaybePromise<PromptBody>;
}

/** One argument as published in prompts/list. */
export interface PromptArgumentListing {
  name: string;
  description?: string;
  required: boolean;
}

export interface PromptDefinition<A extends ArgsObject = ArgsObject>
  extends Readonly<Omit<PromptConfig<A>, "requiredScopes">> {
  readonly kind: "prompt";
  /** Scopes a token needs for this prompt (its pack's apply too); [] when none. */
  readonly requiredScopes: RequiredScopes;
  readonly arguments: readonly PromptArgumentListing[];
  parseArgs(args: unknown): ParseResult<z.output<A>>;
}

/** A prompt template whose arguments Zod validates, with completion per argument. */
export function definePrompt<A extends ArgsObject>(config: PromptConfig<A>): PromptDefinition<A> {
  const label = `Prompt "${config.name}"`;
  checkName(label, config.name);
  checkText(label, "description", config.description);
  const requiredScopes = checkRequiredScopes(label, config.requiredScopes);
  if ((config.args as { _zod?: { def?: { type?: string } } } | undefined)?._zod?.def?.type !== "object") {
    throw new DefinitionError(
      label,
      "C5",
      'args must be a Zod object, e.g. z.object({ topic: z.string().describe("…") }), or z.object({}) for none',
    );
  }
  const shape = config.args.shape as Record<string, z.ZodType>;
  let published: JsonSchema;
  try {
    published = toPortableJsonSchema(config.args, "input");
  } catch (error) {
    throw new DefinitionError(label, "C5", (error as Error).message);
  }
  const properties = (published.properties ?? {}) as Record<string, JsonSchema>;
  const args: PromptArgumentListing[] = [];
  for (const [name, schema] of Object.entries(shape)) {
    const description = properties[name] ? descriptionOf(properties[name]) : undefined;
    if (description === undefined) {
      throw new DefinitionError(label, "C13", `argument "${name}" has no description; add .describe("…")`);
    }
    // Optional and defaulted arguments both accept being left out.
    args.push({ name, description, required: !schema.safeParse(undefined).success });
  }
  for (const key of Object.keys(config.complete ?? {})) {
    if (!(key in shape)) throw new DefinitionError(label, "C13", `complete names "${key}", which is not an argument`);
  }
  const extras = checkListingExtras(label, config);
  return Object.freeze({
    ...config,
    ...extras,
    kind: "prompt" as const,
    requiredScopes,
    arguments: args,
    parseArgs: (input: unknown) => parseArguments(config.args, input),
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
