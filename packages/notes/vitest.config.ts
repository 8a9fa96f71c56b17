import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "notes",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
  },
});
