import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "stdio-server",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // End-to-end tests start dist/cli.js; this builds it once if it is missing.
    globalSetup: ["./test/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
