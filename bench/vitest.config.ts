import { defineProject, mergeConfig } from "vitest/config";
import { sharedProject } from "../vitest.shared.js";

export default mergeConfig(
  sharedProject,
  defineProject({
    test: {
      name: "bench",
      // The benchmarks themselves run with `npm run bench`; these test their scoring parts.
      include: ["**/*.test.mjs"],
      exclude: ["node_modules/**"],
    },
  }),
);
