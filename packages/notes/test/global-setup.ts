import { buildIfStale } from "@toolshed/test-support/build";

// The race workers and the README examples load the built package in plain Node: build it when a source is newer.
export default () => buildIfStale(["@toolshed/notes"]);
