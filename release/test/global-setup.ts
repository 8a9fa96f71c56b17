import { buildIfStale } from "@toolshed/test-support/build";
import { publishedPackages } from "../scripts/lib/workspace.mjs";

// The tests pack every published package from its dist/: build the ones whose sources are newer.
export default () => buildIfStale(publishedPackages().map((pkg) => pkg.name));
