import { defineProject, mergeConfig } from "vitest/config";
import { sharedProject } from "../vitest.shared.js";

export default mergeConfig(
  sharedProject,
  defineProject({
    test: {
      name: "conformance",
      include: ["test/**/*.test.mjs"],
      testTimeout: 300_000,
      hookTimeout: 60_000,
    },
  }),
);
