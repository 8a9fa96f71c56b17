import { defineProject, mergeConfig } from "vitest/config";
import { sharedProject } from "../../vitest.shared.js";

export default mergeConfig(
  sharedProject,
  defineProject({
    test: {
      name: "audit",
      include: ["src/**/*.test.ts", "test/**/*.test.ts"],
      // The CLI tests run dist/cli.js and audit the built servers; this builds what is missing or stale.
      globalSetup: ["./test/global-setup.ts"],
      // End-to-end tests start real servers; a loaded 2-core machine needs room.
      testTimeout: 90_000,
      hookTimeout: 90_000,
    },
  }),
);
