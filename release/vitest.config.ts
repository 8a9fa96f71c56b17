import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "release",
    include: ["test/**/*.test.ts"],
    // npm installs from tarballs build better-sqlite3 from source: minutes on a loaded 2-core machine.
    testTimeout: 900_000,
    hookTimeout: 900_000,
  },
});
