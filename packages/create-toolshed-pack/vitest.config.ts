import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "create-toolshed-pack",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
  },
});
