import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "errors",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
  },
});
