import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "packs",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
  },
});
