import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ensureBuilt } from "./helpers.js";

const run = promisify(execFile);
const SCRIPT = new URL("./fixtures/memory.mjs", import.meta.url).pathname;

// DESIGN: memory stays flat under load. 20,000 calls that kept ~3 KB each would add ~60 MB.
describe("memory over many requests", () => {
  it.each(["stateless", "sessions"])(
    "%s: the heap does not grow with the number of calls",
    async (mode) => {
      ensureBuilt();
      const { stdout } = await run(process.execPath, ["--expose-gc", SCRIPT, mode, "10000"], { timeout: 120_000 });
      const { requests, before, after } = JSON.parse(stdout) as { requests: number; before: number; after: number };
      expect(requests).toBe(20_000);
      expect(after - before).toBeLessThan(8);
    },
    150_000,
  );
});
