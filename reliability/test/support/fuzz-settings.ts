// One seed and one case budget for every fuzz test of a run, so a failure replays with
// TOOLSHED_FUZZ_SEED=<seed> (and the same TOOLSHED_FUZZ_RUNS).

function envInt(name: string): number | undefined {
  const raw = process.env[name]?.trim();
  if (!raw) return undefined;
  const value = Number(raw);
  if (!Number.isSafeInteger(value)) throw new Error(`${name} must be an integer (got "${raw}")`);
  return value;
}

/** Cases over all fuzz tests together; the CI default keeps the run well under three minutes. */
export const FUZZ_TOTAL_RUNS = envInt("TOOLSHED_FUZZ_RUNS") ?? 5_400;

export const FUZZ_SEED = envInt("TOOLSHED_FUZZ_SEED") ?? Math.floor(Math.random() * 2 ** 31);

/** This test's share of the budget (at least one case). */
export function fuzzRuns(share: number): number {
  return Math.max(1, Math.round(FUZZ_TOTAL_RUNS * share));
}

/** A timeout that grows with the number of cases: about 20 ms a case on a loaded machine, plus start-up. */
export function fuzzTimeoutMs(runs: number): number {
  return 60_000 + runs * 20;
}

/** Printed before each property, so the seed is in the log even when the runner dies. */
export function announceFuzz(name: string, runs: number): void {
  process.stderr.write(
    `[fuzz] ${name}: ${runs} cases, seed ${FUZZ_SEED} (replay: TOOLSHED_FUZZ_SEED=${FUZZ_SEED} TOOLSHED_FUZZ_RUNS=${FUZZ_TOTAL_RUNS})\n`,
  );
}
