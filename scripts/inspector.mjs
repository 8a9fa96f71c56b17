// The MCP Inspector that npm start suggests, and the Node it declares (engines in its package.json).
// The README's Quick start says the same; docs-check/test/npm-start.test.ts keeps them in step.
export const INSPECTOR = { spec: "@modelcontextprotocol/inspector@2.12.0", node: "22.19" };

/** Whether this Node meets the Inspector's engines. @param {string} version */
export function inspectorNodeOk(version = process.versions.node) {
  const have = version.split(".").map(Number);
  const need = INSPECTOR.node.split(".").map(Number);
  for (let i = 0; i < need.length; i++) {
    if ((have[i] ?? 0) !== (need[i] ?? 0)) return (have[i] ?? 0) > (need[i] ?? 0);
  }
  return true;
}

/** The line npm start adds on an older Node. @param {string} version */
export function inspectorNodeNote(version = process.versions.node) {
  return (
    `The Inspector needs Node ${INSPECTOR.node}+ (this is Node ${version}): expect EBADENGINE warnings from npx, ` +
    `and if it fails, run it with Node ${INSPECTOR.node} or newer.`
  );
}
