/**
 * Internals of @toolshed/schema that the Toolshed runtime, packs and release tooling build on.
 * Not public API: anything here may change in any release.
 */
export { MAX_LISTED_ISSUES, unknownKeyIssues } from "./arguments.js";
export { checkCacheHint } from "./cache.js";
export { checkInputDescriptions, NAME_PATTERN } from "./checks.js";
export { type ContractChange, diffContracts, type PublishedContract } from "./diff.js";
export { describeValue, formatPath, toValidationIssues } from "./hints.js";
export { isObjectSchema, wrapResultSchema } from "./json-schema.js";
export { checkUniqueNames } from "./pack.js";
export { toPromptResult } from "./prompt.js";
export { checkRequiredScopes, SCOPE_TOKEN_PATTERN } from "./scopes.js";
export { isFullResult, type ShapedResult, shapeToolResult } from "./tool.js";
