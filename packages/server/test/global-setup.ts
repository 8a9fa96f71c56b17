import { buildIfStale } from "@toolshed/test-support/build";

// require.test.ts loads the built packages in a plain Node process: build them when a source is newer.
export default () => buildIfStale(["@toolshed/server"]);
