import { buildIfStale } from "@toolshed/test-support/build";

// The end-to-end tests start dist/cli.js, one bundle of the workspace packages: build it when a source is newer.
export default () => buildIfStale(["@toolshed/stdio-server"]);
