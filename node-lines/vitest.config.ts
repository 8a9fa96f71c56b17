import { defineProject, mergeConfig } from "vitest/config";
import { sharedProject } from "../vitest.shared.js";

export default mergeConfig(
  sharedProject,
  defineProject({
    test: {
      name: "node-lines",
      include: ["test/**/*.test.ts"],
      globalSetup: ["./test/global-setup.ts"],
      // Each Node line runs four projects' suites in a child vitest: minutes on a loaded 2-core machine.
      testTimeout: 900_000,
      hookTimeout: 120_000,
    },
  }),
);
