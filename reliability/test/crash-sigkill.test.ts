import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { SqliteCrmStore, type Tier } from "@toolshed/crm";
import { openPacks } from "@toolshed/packs";
import { connectInMemory, createLogger, createServer } from "@toolshed/server";
import { openSqlite } from "@toolshed/storage";
import { afterAll, describe, expect, it } from "vitest";
import { FUZZ_SEED } from "./support/fuzz-settings.js";
import { seededRandom } from "./support/seeded-random.js";
import { tempDir } from "./support/temp-db.js";

const WRITER = fileURLToPath(new URL("./support/crash-writer.mjs", import.meta.url));
const KILLS = Number(process.env.TOOLSHED_CRASH_KILLS ?? 24);
const ACCOUNTS = Array.from({ length: 20 }, (_, n) => `acc_crash_${String(n).padStart(2, "0")}`);
const ARCHIVED = "acc_crash_19";
const MISSING = "acc_crash_missing";

type Line =
  | { ready: true }
  | { intent: "create"; i: number }
  | { ack: "create"; i: number; id: string }
  | { intent: "bulk"; round: number; tier: Tier }
  | { ack: "bulk"; round: number; tier: Tier; succeeded: string[]; failed: string[] };

interface Row {
  id: string;
  tier: Tier;
  updated_at: string;
  archived: number;
}

/** Runs the writer until a random moment after it is ready, kills it, returns the lines it printed. */
async function runAndKill(db: string, firstCreate: number, firstRound: number, delayMs: number): Promise<Line[]> {
  const child = spawn(process.execPath, [WRITER, db, String(firstCreate), String(firstRound), ...ACCOUNTS, MISSING], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: Line[] = [];
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
    child.once("exit", (code, signal) => resolve(signal ?? code)),
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the writer did not start:\n${stderr}`)), 30_000);
    createInterface({ input: child.stdout }).on("line", (text) => {
      try {
        const line = JSON.parse(text) as Line;
        lines.push(line);
        if ("ready" in line) {
          clearTimeout(timer);
          setTimeout(resolve, delayMs);
        }
      } catch {
        // A line cut by the kill is no acknowledgement.
      }
    });
    void exited.then((how) => reject(new Error(`the writer exited by itself (${how}):\n${stderr}`)));
  });
  child.kill("SIGKILL");
  expect(await exited).toBe("SIGKILL");
  return lines;
}

function readRows(db: string): Map<string, Row> {
  const conn = openSqlite(db);
  try {
    const rows = conn
      .prepare("SELECT id, tier, updated_at, archived FROM crm_accounts WHERE id LIKE 'acc_crash_%'")
      .all() as Row[];
    return new Map(rows.map((r) => [r.id, r]));
  } finally {
    conn.close();
  }
}

describe("crash safety: SIGKILL during bulk tier updates and idempotent creates", () => {
  const temp = tempDir("crash");
  const db = temp.file("crm.db");
  afterAll(() => temp.remove());

  it(`keeps the file intact and every acknowledged write through ${KILLS} kills`, async () => {
    const setup = SqliteCrmStore.open(db);
    for (const id of ACCOUNTS)
      await setup.createAccount({ id, name: `Crash Fixture ${id}`, tier: "startup", arr: 1000 });
    await setup.setArchived(ARCHIVED, true);
    await setup.close();

    const random = seededRandom(FUZZ_SEED);
    const ackedCreates = new Map<number, string>();
    const ackedTier = new Map<string, Tier>(ACCOUNTS.map((id) => [id, "startup"]));
    let baseline = readRows(db);
    let nextCreate = 0;
    let nextRound = 1;
    const figures = { kills: 0, killedMidWrite: 0, createsAcked: 0, bulksAcked: 0, retriedInFlight: 0 };
    process.stderr.write(`[crash] ${KILLS} kills, seed ${FUZZ_SEED} (replay: TOOLSHED_FUZZ_SEED=${FUZZ_SEED})\n`);

    for (let kill = 0; kill < KILLS; kill++) {
      const lines = await runAndKill(db, nextCreate, nextRound, Math.floor(random() * 400));
      figures.kills++;
      let inFlight: Line | undefined;
      for (const line of lines) {
        if ("intent" in line) inFlight = line;
        if ("ack" in line) {
          inFlight = undefined;
          if (line.ack === "create") {
            ackedCreates.set(line.i, line.id);
            figures.createsAcked++;
            nextCreate = line.i + 1;
          } else {
            for (const id of line.succeeded) ackedTier.set(id, line.tier);
            expect(line.failed.sort()).toEqual([ARCHIVED, MISSING].sort());
            figures.bulksAcked++;
            nextRound = line.round + 1;
          }
        }
      }
      if (inFlight) figures.killedMidWrite++;
      const where = `after kill ${kill + 1} (in flight: ${JSON.stringify(inFlight)})`;

      // The file is intact, search index included.
      const conn = openSqlite(db);
      expect(conn.pragma("integrity_check", { simple: true }), where).toBe("ok");
      conn.prepare("INSERT INTO crm_accounts_fts (crm_accounts_fts) VALUES ('integrity-check')").run();
      conn.close();

      // Every acknowledged create is there, exactly once.
      const conn2 = openSqlite(db, { readonly: true });
      const count = conn2.prepare("SELECT count(*) AS n, min(id) AS id FROM crm_accounts WHERE name = ?");
      for (const [i, id] of ackedCreates) {
        expect(count.get(`Crash Account ${i}`), `${where}: create ${i}`).toEqual({ n: 1, id });
      }
      conn2.close();

      // No bulk item half applied: each account has the tier last acknowledged for it, or the one
      // being written when the process died; tier and updated_at changed together or not at all.
      const rows = readRows(db);
      for (const id of ACCOUNTS) {
        const row = rows.get(id) as Row;
        const before = baseline.get(id) as Row;
        const allowed = new Set([ackedTier.get(id)]);
        if (inFlight && "intent" in inFlight && inFlight.intent === "bulk" && id !== ARCHIVED)
          allowed.add(inFlight.tier);
        expect(allowed.has(row.tier), `${where}: ${id} has tier ${row.tier}, expected ${[...allowed]}`).toBe(true);
        if (row.updated_at === before.updated_at)
          expect(row.tier, `${where}: ${id} tier without updated_at`).toBe(before.tier);
        else expect(row.updated_at > before.updated_at, `${where}: ${id} updated_at went back`).toBe(true);
      }
      expect(rows.get(ARCHIVED)).toEqual(baseline.get(ARCHIVED));

      // Retrying the create that was in flight (or the next one) after the crash gives one record;
      // so does repeating an acknowledged one.
      const retryIndex = inFlight && "intent" in inFlight && inFlight.intent === "create" ? inFlight.i : nextCreate;
      if (retryIndex === (inFlight as { i?: number } | undefined)?.i) figures.retriedInFlight++;
      const opened = await openPacks({ db, packs: ["crm"] });
      const server = createServer({
        name: "retry",
        version: "1.0.0",
        packs: opened.packs,
        logger: createLogger({ level: "silent" }),
      });
      const client = await connectInMemory(server);
      const retry = async (i: number) => {
        const args = { name: `Crash Account ${i}`, tier: "startup", arr: i, idempotency_key: `crash-key-${i}` };
        const result = await client.callTool({ name: "crm_create_account", arguments: args });
        expect(result.isError, `${where}: retry of create ${i}: ${JSON.stringify(result.content)}`).toBeFalsy();
        return (result.structuredContent as { id: string }).id;
      };
      const retriedId = await retry(retryIndex);
      ackedCreates.set(retryIndex, retriedId);
      expect(await retry(retryIndex)).toBe(retriedId);
      const earlier = [...ackedCreates.keys()][Math.floor(random() * ackedCreates.size)] as number;
      expect(await retry(earlier)).toBe(ackedCreates.get(earlier));
      await client.close();
      await server.close();
      await opened.close();
      const conn3 = openSqlite(db, { readonly: true });
      expect(
        conn3.prepare("SELECT count(*) AS n FROM crm_accounts WHERE name = ?").get(`Crash Account ${retryIndex}`),
      ).toEqual({ n: 1 });
      conn3.close();

      nextCreate = Math.max(nextCreate, retryIndex + 1);
      if (inFlight && "intent" in inFlight && inFlight.intent === "bulk") nextRound = inFlight.round + 1;
      baseline = readRows(db);
      for (const [id, row] of baseline) if (id !== ARCHIVED) ackedTier.set(id, row.tier);
    }

    process.stderr.write(`[crash] ${JSON.stringify(figures)}\n`);
    expect(figures.kills).toBeGreaterThanOrEqual(20);
    expect(figures.createsAcked).toBeGreaterThan(0);
    expect(figures.bulksAcked).toBeGreaterThan(0);
    expect(figures.killedMidWrite).toBeGreaterThan(KILLS / 2);
  }, 300_000);
});
