// The contract fixture packs (packages/server/test/fixtures.ts) served over stdio, as a real
// process: bundled by contract-targets.ts, so the stdio and HTTP targets serve the same packs.
import { createServer, StdioTransport } from "@toolshed/server";
import { crmPack, FakeCrm, miscPack, notesPack, ticketsPack } from "../../../packages/server/test/fixtures.js";
import { ContextProbe, contextPack } from "../../../packages/server/test/more-fixtures.js";

const readOnly = process.argv.includes("--read-only");
const server = createServer({
  name: "contract",
  version: "1.0.0",
  packs: [notesPack, ticketsPack, crmPack(new FakeCrm()), miscPack, contextPack(new ContextProbe())],
  readOnly,
});
const transport = new StdioTransport();
transport.onclose = () => void server.close().then(() => process.exit(0));
await server.connect(transport);
