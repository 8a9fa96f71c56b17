import { defineProject } from "vitest/config";

/**
 * What every vitest project shares: workspace packages resolve to their sources through the
 * "@toolshed/source" export condition (first key of each exports entry; `publishConfig.exports`
 * leaves it out of the published package.json), so a test never runs against a stale dist/.
 * Tests run in vite's ssr environment; the other conditions are vitest's defaults there.
 */
const conditions = ["@toolshed/source", "node", "development|production"];

export const sharedProject = defineProject({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
});
