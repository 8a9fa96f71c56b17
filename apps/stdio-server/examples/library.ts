import { parseStdioArgs, runStdioServer } from "@toolshed/stdio-server";

const config = parseStdioArgs(process.argv.slice(2), process.env); // throws StdioUsageError
const running = await runStdioServer(config); // serves process.stdin / process.stdout
await running.stopped; // resolves with the reason once the database is closed
