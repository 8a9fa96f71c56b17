import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "tickets",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
  },
});
