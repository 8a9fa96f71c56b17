import { defineConfig } from "vitest/config";

/**
 * The outside-in projects (packed tarballs installed into fresh npm projects, the scaffold end to
 * end, other Node lines, the official conformance suite against real servers) and the rest. `npm test` runs the two sides in vitests of their own, side by
 * side (scripts/run.mjs), choosing one with TOOLSHED_TEST_LANE; unset, every project runs.
 */
const LANES = {
  "outside-in": ["release", "node-lines", "conformance"],
  rest: ["packages/*", "apps/*", "reliability", "docs-check", "bench"],
};

const lane = process.env.TOOLSHED_TEST_LANE;
if (lane !== undefined && lane !== "" && !Object.hasOwn(LANES, lane)) {
  throw new Error(
    `TOOLSHED_TEST_LANE=${lane}: use ${Object.keys(LANES).join(" or ")}, or leave it unset for every project`,
  );
}

export default defineConfig({
  test: {
    projects: lane ? LANES[lane as keyof typeof LANES] : [...LANES.rest, ...LANES["outside-in"]],
  },
});
