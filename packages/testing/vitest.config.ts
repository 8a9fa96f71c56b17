import { defineProject, mergeConfig } from "vitest/config";
import { sharedProject } from "../../vitest.shared.js";

export default mergeConfig(
  sharedProject,
  defineProject({
    test: {
      name: "testing",
      include: ["src/**/*.test.ts", "test/**/*.test.ts"],
      // Fuzzing makes hundreds of calls; a loaded 2-core machine needs more than the default 5 s.
      testTimeout: 60_000,
    },
  }),
);
