export {
  type OpenedPacks,
  type OpenPacksOptions,
  openPacks,
  PACK_NAMES,
  PackConfigError,
  type PackName,
  parsePackList,
} from "./open-packs.js";
