// Module resolve hook (runs in the loader thread): only the conformance package's imports of
// fs get the shim; everything else resolves as usual.
const SHIM_URL = new URL("./fs-shim.mjs", import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if (
    (specifier === "fs" || specifier === "node:fs") &&
    context.parentURL?.includes("/@modelcontextprotocol/conformance/")
  ) {
    return { url: SHIM_URL, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}
