import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "http-server",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // End-to-end tests start dist/cli.js; this builds it once if it is missing.
    globalSetup: ["./test/global-setup.ts"],
    // End-to-end tests start real processes; a loaded 2-core machine needs room.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
