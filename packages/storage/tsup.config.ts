import { defineConfig } from "tsup";
import { libraryBuild } from "../../tsup.library.js";

export default defineConfig(libraryBuild(["src/index.ts", "src/postgres/index.ts"]));
