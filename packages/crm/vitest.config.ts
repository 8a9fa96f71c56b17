import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "crm",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
  },
});
