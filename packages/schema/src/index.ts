/**
 * @toolshed/schema: helpers that turn typed definitions (Zod, JSON Schema documents, Standard
 * Schema libraries) into MCP tools, resources, prompts and packs, checked when they are made.
 *
 * This file defines the complete public surface of the package. Any new export added here
 * becomes public API. Use named exports, not wildcards. What the Toolshed runtime and tooling
 * need beyond it lives in `@toolshed/schema/internal`, which may change in any release.
 */

export { type ParseOptions, type ParseResult, parseArguments } from "./arguments.js";
export type { CacheHint } from "./cache.js";
export type { Coercion, CoercionKind } from "./coerce.js";
export type {
  AskOptions,
  AuthInfo,
  InputContext,
  Logger,
  LoggingLevel,
  PromptContext,
  RequestContext,
  ToolContext,
} from "./context.js";
export { DefinitionError } from "./definition-error.js";
export { eachOnce } from "./each-once.js";
export { fencedData } from "./fence.js";
export type { HeaderParam } from "./headers.js";
export { hintErrorMap } from "./hints.js";
export { type JsonSchema, toPortableJsonSchema } from "./json-schema.js";
export { type JsonSchemaInput, jsonSchema } from "./json-schema-input.js";
export type { Icon, ListingExtras } from "./listing-extras.js";
export type { InputValues, ObjectInput } from "./object-input.js";
export {
  type AnyPrompt,
  type AnyResourceTemplate,
  type AnyTool,
  definePack,
  type Pack,
  type PackCacheHints,
  type PackConfig,
} from "./pack.js";
export {
  type AnyPackDescriptor,
  definePackDescriptor,
  isPackDescriptor,
  type PackDescriptor,
  type PackDescriptorConfig,
  type PackStore,
  type PackStoreOptions,
  type PackStoreSchema,
  type PostgresPackStore,
  type SqlitePackStore,
} from "./pack-descriptor.js";
export {
  definePrompt,
  type PromptArgumentListing,
  type PromptBody,
  type PromptConfig,
  type PromptDefinition,
} from "./prompt.js";
export {
  type ArgumentChange,
  type PackChange,
  reshapePack,
  reshapeTool,
  type ToolChange,
} from "./reshape.js";
export {
  type Completer,
  type CompletionContext,
  defineResource,
  defineResourceTemplate,
  type ListedResource,
  type ResourceBody,
  type ResourceConfig,
  type ResourceContent,
  type ResourceDefinition,
  type ResourceTemplateConfig,
  type ResourceTemplateDefinition,
} from "./resource.js";
export type { RequiredScopes } from "./scopes.js";
export {
  defineTool,
  type FullResult,
  fullResult,
  type OutputCheck,
  type SchemaKind,
  type TaskConfig,
  type TaskMode,
  type TaskStart,
  type TextFormat,
  type ToolAnnotations,
  type ToolArgs,
  type ToolConfig,
  type ToolDefinition,
  type ToolInput,
  type ToolListing,
  type ToolOutput,
  type ToolReturn,
} from "./tool.js";
export { decodeUriVariable } from "./uri-text.js";
