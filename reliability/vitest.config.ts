import { defineProject, mergeConfig } from "vitest/config";
import { sharedProject } from "../vitest.shared.js";

export default mergeConfig(
  sharedProject,
  defineProject({
    test: {
      name: "reliability",
      include: ["test/**/*.test.ts"],
      // The tests start the built bins; this builds them when a source is newer.
      globalSetup: ["./test/global-setup.ts"],
      // These tests start real processes and run thousands of cases; a loaded 2-core machine is slow.
      testTimeout: 240_000,
      hookTimeout: 60_000,
    },
  }),
);
