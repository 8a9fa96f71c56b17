import { defineProject, mergeConfig } from "vitest/config";
import { sharedProject } from "../../vitest.shared.js";

export default mergeConfig(
  sharedProject,
  defineProject({
    test: {
      name: "stdio-server",
      include: ["src/**/*.test.ts", "test/**/*.test.ts"],
      // End-to-end tests start dist/cli.js; this builds it when a source is newer.
      globalSetup: ["./test/global-setup.ts"],
      testTimeout: 30_000,
      hookTimeout: 60_000,
    },
  }),
);
