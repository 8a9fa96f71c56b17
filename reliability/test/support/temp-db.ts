// The fuzz and crash tests import tempDir from here; it is written once, in @toolshed/test-support.
export { tempDir } from "@toolshed/test-support";
