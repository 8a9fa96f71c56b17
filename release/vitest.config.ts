import { defineProject, mergeConfig } from "vitest/config";
import { sharedProject } from "../vitest.shared.js";

export default mergeConfig(
  sharedProject,
  defineProject({
    test: {
      name: "release",
      include: ["test/**/*.test.ts"],
      // The tests pack dist/; this builds it when a source is newer.
      globalSetup: ["./test/global-setup.ts"],
      // npm installs from tarballs build better-sqlite3 from source: minutes on a loaded 2-core machine.
      testTimeout: 900_000,
      hookTimeout: 900_000,
    },
  }),
);
