import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "reliability",
    include: ["test/**/*.test.ts"],
    // These tests start real processes and run thousands of cases; a loaded 2-core machine is slow.
    testTimeout: 240_000,
    hookTimeout: 60_000,
  },
});
