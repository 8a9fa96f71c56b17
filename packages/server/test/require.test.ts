import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

it("the built packages load with require() from CommonJS, as their CommonJS builds", () => {
  const script = `
    const { createServer, connectInMemory } = require("@toolshed/server");
    const { defineTool, definePack } = require("@toolshed/schema");
    const { NotFoundError } = require("@toolshed/errors");
    const { z } = require("zod");
    const pack = definePack({ name: "p", tools: [defineTool({
      name: "get_note", description: "Get a note.",
      input: z.object({ title: z.string().describe("Title") }),
      handler: ({ title }) => { throw new NotFoundError("No note '" + title + "'"); },
    })] });
    const server = createServer({ name: "cjs", version: "1", packs: [pack] });
    connectInMemory(server).then(async (client) => {
      const r = await client.callTool({ name: "get_note", arguments: { title: "x" } });
      const builds = ["@toolshed/server", "@toolshed/schema", "@toolshed/errors"].map((name) => require.resolve(name).split("/dist/")[1]);
      process.stdout.write(builds.join(" ") + " | " + r.content[0].text);
      await client.close();
      await server.close();
    });
  `;
  const out = execFileSync(process.execPath, ["--no-warnings", "-e", script], {
    cwd: fileURLToPath(new URL("..", import.meta.url)),
    encoding: "utf8",
    env: { ...process.env, NODE_OPTIONS: "" },
  });
  expect(out).toBe("index.cjs index.cjs index.cjs | Error executing tool get_note: No note 'x'");
});
