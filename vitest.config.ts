import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: ["packages/*", "apps/*", "conformance", "reliability", "docs-check", "release", "node-lines"],
  },
});
