/**
 * create-toolshed-pack: scaffolds a Toolshed tool pack. The command line is `create-toolshed-pack`
 * (`npm create toolshed-pack@latest my-pack`); this is the same as a function.
 *
 * This file defines the complete public surface of the package. Any new export added here
 * becomes public API. Use named exports, not wildcards.
 */
export { type PackNames, packageNameProblem, packNames } from "./name.js";
export {
  ScaffoldError,
  type ScaffoldOptions,
  type ScaffoldResult,
  scaffoldPack,
  type WrittenFile,
} from "./scaffold.js";
export { findToolshedWorkspace } from "./workspace.js";
