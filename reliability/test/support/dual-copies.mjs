// Run with plain Node (no source conditions): loads each package's ESM build with import and its
// CommonJS build with require, and prints what `instanceof` says across the two copies, and what a
// client gets when a handler or a middleware throws the CommonJS copy's JsonRpcError.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const PACKAGES = JSON.parse(process.argv[2]);
const out = { resolved: require.resolve("@toolshed/server"), sameClass: false, checks: [], answers: [] };
const esmOf = {};
for (const pkg of Object.keys(PACKAGES)) esmOf[pkg] = await import(pkg);
const all = Object.entries(PACKAGES).flatMap(([pkg, names]) => names.map((name) => [pkg, name]));
out.sameClass = require("@toolshed/server").JsonRpcError === esmOf["@toolshed/server"].JsonRpcError;
for (const [pkg, name] of all) {
  const esm = esmOf[pkg][name];
  const cjs = require(pkg)[name];
  for (const [otherPkg, otherName] of all) {
    const fromCjs = Object.create(require(otherPkg)[otherName].prototype);
    const fromEsm = Object.create(esmOf[otherPkg][otherName].prototype);
    out.checks.push([`${otherName} (CommonJS) instanceof ${name} (ESM)`, fromCjs instanceof esm]);
    out.checks.push([`${otherName} (ESM) instanceof ${name} (CommonJS)`, fromEsm instanceof cjs]);
  }
  out.checks.push([`Error instanceof ${name}`, new Error("x") instanceof esm]);
}
const errors = esmOf["@toolshed/errors"];
class Mine extends errors.NotFoundError {}
out.checks.push(["Mine instanceof Mine", new Mine("x") instanceof Mine]);
out.checks.push(["NotFoundError instanceof Mine", new errors.NotFoundError("x") instanceof Mine]);
out.checks.push([
  "isToolError(NotFoundError (CommonJS))",
  errors.isToolError(new (require("@toolshed/errors").NotFoundError)("x")),
]);

const { definePack, defineResource } = await import("@toolshed/schema");
const { connectInMemory, createServer, createLogger } = esmOf["@toolshed/server"];
const CjsJsonRpcError = require("@toolshed/server").JsonRpcError;
const server = createServer({
  name: "dual",
  version: "1",
  logger: createLogger({ level: "silent" }),
  packs: [
    definePack({
      name: "p",
      resources: [
        defineResource({
          uri: "docs://gone",
          name: "gone",
          description: "Always missing",
          read: () => {
            throw new CjsJsonRpcError(-32002, "Resource not found: docs://gone", { uri: "docs://gone" });
          },
        }),
      ],
    }),
  ],
  middleware: [
    async (ctx, next) => {
      if (ctx.method === "resources/templates/list") throw new CjsJsonRpcError(-32602, "Invalid params: not today");
      return next();
    },
  ],
});
const client = await connectInMemory(server);
for (const ask of [() => client.readResource({ uri: "docs://gone" }), () => client.listResourceTemplates()]) {
  try {
    await ask();
    out.answers.push("answered");
  } catch (error) {
    out.answers.push({ code: error.code, message: error.message });
  }
}
await client.close();
await server.close();
process.stdout.write(JSON.stringify(out));
