/**
 * @toolshed/testing: the testing kit for Toolshed tool packs: connect a pack to a real MCP client
 * in memory (either protocol era), assert tool results and errors, fuzz a pack from its published
 * schemas, and gate breaking changes to its published contract.
 *
 * This file defines the complete public surface of the package. Any new export added here
 * becomes public API. Use named exports, not wildcards.
 */
export { leaksIn, responseProblems, type ToolCallExpectation, toolResultProblems } from "./answer-checks.js";
export {
  type ArgumentPath,
  type ExpectToolErrorOptions,
  expectInvalidArguments,
  expectToolError,
  expectToolResult,
  resultText,
  type ToolErrorDetails,
} from "./assertions.js";
export { type Bump, breakingChangesetsFor, majorChangesetsFor, parseChangesetBumps } from "./changesets.js";
export {
  type CallOptions,
  type ConnectPackOptions,
  connectPack,
  type PackConnection,
  PROTOCOL_ERAS,
  type ProtocolEra,
  type RpcAnswer,
} from "./connect.js";
export {
  type CheckPackContractOptions,
  type ContractChange,
  type ContractComparison,
  type ContractSnapshot,
  checkPackContract,
  compareContracts,
  describeChanges,
  formatContract,
  packContract,
  UPDATE_SNAPSHOTS_ENV,
} from "./contract.js";
export {
  type FuzzFailure,
  FuzzFailureError,
  type FuzzPackOptions,
  type FuzzReport,
  fuzzPack,
} from "./fuzz.js";
export { hostileString, QUERY_SYNTAX } from "./hostile-strings.js";
export {
  breaksSchema,
  type JsonSchema as ArgumentsSchema,
  jsonType,
  type KnownValues,
  valueFor,
} from "./json-schema-arb.js";
export { type ArgsCase, argsCases } from "./mutate-args.js";
export {
  type CheckPackDescriptorOptions,
  checkPackDescriptor,
  type PackDescriptorReport,
} from "./pack-descriptor.js";
