import { fileURLToPath } from "node:url";

/** The built servers, as `npx` would start them. */
export const STDIO_CLI = fileURLToPath(new URL("../../../apps/stdio-server/dist/cli.js", import.meta.url));
export const HTTP_CLI = fileURLToPath(new URL("../../../apps/http-server/dist/cli.js", import.meta.url));
