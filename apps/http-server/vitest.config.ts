import { defineProject, mergeConfig } from "vitest/config";
import { sharedProject } from "../../vitest.shared.js";

export default mergeConfig(
  sharedProject,
  defineProject({
    test: {
      name: "http-server",
      include: ["src/**/*.test.ts", "test/**/*.test.ts"],
      // End-to-end tests start dist/cli.js; this builds it when a source is newer.
      globalSetup: ["./test/global-setup.ts"],
      // End-to-end tests start real processes; a loaded 2-core machine needs room.
      testTimeout: 60_000,
      hookTimeout: 60_000,
    },
  }),
);
