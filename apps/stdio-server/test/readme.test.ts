import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { parseStdioArgs, STDIO_FLAGS } from "../src/index.js";
import { cleanEnv, cleanup, connectClient, tempDir } from "./helpers.js";

afterEach(cleanup);

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  name: string;
  bin: Record<string, string>;
};

interface Launch {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

const launches: Launch[] = [...readme.matchAll(/```json\n([\s\S]*?)```/g)].flatMap((m) => {
  const config = JSON.parse(m[1] ?? "") as { mcpServers: Record<string, Launch> };
  return Object.values(config.mcpServers);
});

const ENV_NAMES = Object.values(STDIO_FLAGS).flatMap((spec) => ("env" in spec ? [spec.env] : []));

describe("README", () => {
  it("has desktop-client JSON blocks that parse and launch this package with valid flags and variables", () => {
    expect(launches.length).toBeGreaterThanOrEqual(2);
    for (const launch of launches) {
      expect(launch.command).toBe("npx");
      expect(launch.args.slice(0, 2)).toEqual(["-y", manifest.name]);
      for (const name of Object.keys(launch.env ?? {})) expect(ENV_NAMES).toContain(name);
      expect(parseStdioArgs(launch.args.slice(2), launch.env ?? {}).command).toBe("serve");
    }
    expect(parseStdioArgs(launches[0]?.args.slice(2) ?? [], {})).toMatchObject({
      db: "/path/to/toolshed.db",
      demo: true,
    });
    expect(parseStdioArgs(launches[1]?.args.slice(2) ?? [], launches[1]?.env ?? {})).toMatchObject({
      db: "/path/to/toolshed.db",
      packs: ["notes"],
      readOnly: true,
    });
  });

  it("the first JSON block's flags start a working server (with a temp database)", async () => {
    const args = (launches[0]?.args.slice(2) ?? []).map((a) =>
      a === "/path/to/toolshed.db" ? tempDir().file("t.db") : a,
    );
    const { client } = await connectClient(args, cleanEnv());
    const note = await client.callTool({ name: "get_note", arguments: { title: "groceries" } });
    expect(note.structuredContent).toEqual({ title: "groceries", body: "milk, eggs", words: 2 });
  });

  it("the flags table names every flag and variable of the bin, and nothing else", () => {
    expect(Object.keys(manifest.bin)).toEqual(["toolshed-stdio"]);
    const table = readme.slice(
      readme.indexOf("## Flags and environment variables"),
      readme.indexOf("The tools by pack"),
    );
    const flagsInTable = new Set([...table.matchAll(/`(--[a-z-]+)/g)].map((m) => m[1]));
    expect(flagsInTable).toEqual(new Set(Object.keys(STDIO_FLAGS).map((f) => `--${f}`)));
    const varsInTable = new Set([...table.matchAll(/`(TOOLSHED_[A-Z_]+)`/g)].map((m) => m[1]));
    expect(varsInTable).toEqual(new Set(ENV_NAMES));
  });

  it("the library sample is examples/library.ts, which the typecheck compiles", () => {
    const example = readFileSync(new URL("../examples/library.ts", import.meta.url), "utf8");
    expect(readme).toContain(`\`\`\`ts\n${example}\`\`\``);
  });
});
