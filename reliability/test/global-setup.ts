import { buildIfStale } from "@toolshed/test-support/build";

// The tests start both bins and load the built packages in child processes: build them when a source is newer.
export default () => buildIfStale(["@toolshed/http-server", "@toolshed/stdio-server"]);
