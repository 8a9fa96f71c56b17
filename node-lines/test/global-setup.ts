import { buildIfStale } from "@toolshed/test-support/build";

// The smoke starts both servers' dist/cli.js under each line: build them when a source is newer.
export default () => buildIfStale(["@toolshed/stdio-server", "@toolshed/http-server"]);
