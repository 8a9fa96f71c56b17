import { builtinModules } from "node:module";

/** The names a scaffold derives from its npm package name. */
export interface PackNames {
  /** The npm package name, e.g. `@acme/weather-pack`. */
  packageName: string;
  /** The package name without its scope, e.g. `weather-pack`: the default folder name. */
  unscoped: string;
  /** The pack's own name and tool name prefix, e.g. `weather` (tools `weather_get_item`, …). */
  pack: string;
  /** For identifiers: `Weather` (WeatherStore, SqliteWeatherStore). */
  pascal: string;
  /** For identifiers: `weather` (weatherPack). */
  camel: string;
  /** URI scheme of the pack's resources, e.g. `weather`. */
  scheme: string;
  /** A snake-case SQL identifier, e.g. `weather` (`weather_items`); never starts with a digit. */
  snake: string;
}

const NAME_PART = /^[a-z0-9~-][a-z0-9._~-]*$/;
const RESERVED = new Set(["node_modules", "favicon.ico"]);

/**
 * Why `name` cannot be published as a new npm package, with what would work; undefined when it can.
 * Follows npm's rules for new names: lowercase, URL-safe, at most 214 characters, an optional scope.
 */
export function packageNameProblem(name: string): string | undefined {
  if (name.trim() === "") return "the package name is empty; pass one such as my-pack or @acme/weather-pack";
  if (name.length > 214) return `the package name is ${name.length} characters long; npm allows at most 214`;
  const match = /^(?:@([^/]*)\/)?([^/]*)$/.exec(name);
  const suggestion = suggestName(name);
  const tryInstead = suggestion && suggestion !== name ? `; try ${suggestion}` : "";
  if (!match) return `"${name}" has a "/" outside a scope; a name is name or @scope/name${tryInstead}`;
  const [, scope, bare = ""] = match;
  if (scope !== undefined && !NAME_PART.test(scope)) {
    return `the scope "@${scope}" is not a valid npm scope (lowercase letters, digits, "-", "." and "_", not first)${tryInstead}`;
  }
  if (name !== name.toLowerCase()) return `"${name}" has capital letters; npm names are lowercase${tryInstead}`;
  if (bare.startsWith(".") || bare.startsWith("_"))
    return `"${name}" starts with "${bare[0]}"; npm names cannot${tryInstead}`;
  if (!NAME_PART.test(bare)) {
    return `"${name}" has characters npm does not allow in a name (only lowercase letters, digits, "-", ".", "_" and "~")${tryInstead}`;
  }
  if (scope === undefined && (RESERVED.has(bare) || builtinModules.includes(bare))) {
    return `"${name}" is reserved (a Node.js module or an npm name); choose another, such as ${bare}-pack`;
  }
  return undefined;
}

/** A valid name close to `name`, or undefined when none is obvious. */
function suggestName(name: string): string | undefined {
  const clean = (part: string) =>
    part
      .toLowerCase()
      .replace(/[^a-z0-9._~-]+/g, "-")
      .replace(/^[._-]+|-+$/g, "");
  const match = /^@([^/]+)\/(.+)$/.exec(name.trim());
  const fixed = match ? `@${clean(match[1] ?? "")}/${clean(match[2] ?? "")}` : clean(name.trim());
  return /^(@[a-z0-9~-][a-z0-9._~-]*\/)?[a-z0-9~-][a-z0-9._~-]*$/.test(fixed) ? fixed : undefined;
}

/**
 * The pack's names from its package name: the scope and a `toolshed-` prefix or `-pack` suffix are
 * dropped (`@acme/weather-pack` gives the pack `weather`), the rest becomes snake case.
 */
export function packNames(packageName: string): PackNames {
  const unscoped = packageName.replace(/^@[^/]+\//, "");
  const words = (text: string) => text.split(/[^a-z0-9]+/).filter((w) => w !== "");
  let core = words(unscoped);
  const trimmed = core.filter((w, i) => !(w === "toolshed" && i === 0) && !(w === "pack" && i === core.length - 1));
  if (trimmed.length > 0) core = trimmed;
  if (core.length === 0) core = ["pack"];
  const pack = core.join("_");
  const capital = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);
  const startsWithDigit = /^[0-9]/.test(pack);
  const pascal = (startsWithDigit ? "Pack" : "") + core.map(capital).join("");
  const camel = startsWithDigit
    ? `pack${core.map(capital).join("")}`
    : (core[0] ?? "") + core.slice(1).map(capital).join("");
  const scheme = (startsWithDigit ? "pack-" : "") + core.join("-");
  const snake = (startsWithDigit ? "pack_" : "") + pack;
  return { packageName, unscoped, pack, pascal, camel, scheme, snake };
}
