import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "conformance",
    include: ["test/**/*.test.mjs"],
    testTimeout: 300_000,
    hookTimeout: 60_000,
  },
});
