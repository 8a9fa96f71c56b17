export { MAX_LISTED_ISSUES, type ParseResult, parseArguments, unknownKeyIssues } from "./arguments.js";
export { type CacheHint, checkCacheHint } from "./cache.js";
export { checkInputDescriptions, NAME_PATTERN } from "./checks.js";
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
export { type ContractChange, diffContracts, type PublishedContract } from "./diff.js";
export { describeValue, formatPath, hintErrorMap, toValidationIssues } from "./hints.js";
export { isObjectSchema, type JsonSchema, toPortableJsonSchema, wrapResultSchema } from "./json-schema.js";
export {
  type AnyPrompt,
  type AnyResourceTemplate,
  type AnyTool,
  checkUniqueNames,
  definePack,
  type Pack,
  type PackCacheHints,
  type PackConfig,
} from "./pack.js";
export {
  definePrompt,
  type PromptArgumentListing,
  type PromptBody,
  type PromptConfig,
  type PromptDefinition,
  toPromptResult,
} from "./prompt.js";
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
export {
  defineTool,
  type FullResult,
  fullResult,
  isFullResult,
  type ShapedResult,
  shapeToolResult,
  type TextFormat,
  type ToolAnnotations,
  type ToolConfig,
  type ToolDefinition,
  type ToolListing,
  type ToolReturn,
} from "./tool.js";
export { decodeUriVariable } from "./uri-text.js";
