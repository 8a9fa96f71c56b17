import { defineProject, mergeConfig } from "vitest/config";
import { sharedProject } from "../../vitest.shared.js";

export default mergeConfig(
  sharedProject,
  defineProject({
    test: {
      name: "notes",
      include: ["src/**/*.test.ts", "test/**/*.test.ts"],
      // Some tests load dist/ in plain Node; this builds it when a source is newer.
      globalSetup: ["./test/global-setup.ts"],
    },
  }),
);
