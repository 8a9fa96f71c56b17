import { buildIfStale } from "@toolshed/test-support/build";

// The end-to-end tests start dist/cli.js: build it (and the packages it needs) when a source is newer.
export default () => buildIfStale(["@toolshed/http-server"]);
