import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "audit",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
  },
});
