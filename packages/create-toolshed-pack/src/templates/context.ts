import type { PackNames } from "../name.js";

/** What every template reads. */
export interface TemplateContext {
  names: PackNames;
  description: string;
  /** The Toolshed release the pack is made for (the version of create-toolshed-pack). */
  toolshedVersion: string;
  mode: "standalone" | "workspace";
  /** Workspace mode: the monorepo root relative to the pack folder, with "/" (e.g. `../..`). */
  rootFromPack: string;
  /** Workspace mode: the pack folder relative to the monorepo root, with "/" (e.g. `packages/weather-pack`). */
  packFromRoot: string;
  /**
   * Workspace mode: the monorepo shares a vitest project (vitest.shared.ts) that resolves
   * workspace packages to their sources through the "@toolshed/source" export condition.
   */
  sourceCondition: boolean;
}

/** The prefix of the pack's exported constants, e.g. `WEATHER` (WEATHER_SQLITE_MIGRATIONS). */
export function constantPrefix(ctx: TemplateContext): string {
  return ctx.names.snake.toUpperCase();
}

/** Tool names of the scaffolded pack. */
export function toolNames(ctx: TemplateContext) {
  return { get: `${ctx.names.pack}_get_item`, add: `${ctx.names.pack}_add_item` };
}

/**
 * Names in the order Biome sorts imported and exported names: letters compared without case,
 * the capital first where only case differs, a prefix before what extends it.
 */
export function sortedNames(...names: string[]): string {
  const compare = (a: string, b: string): number => {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const [x, y] = [a.charAt(i), b.charAt(i)];
      if (x.toLowerCase() !== y.toLowerCase()) return x.toLowerCase() < y.toLowerCase() ? -1 : 1;
      if (x !== y) return x < y ? -1 : 1;
    }
    return a.length - b.length;
  };
  return [...names].sort(compare).join(", ");
}
