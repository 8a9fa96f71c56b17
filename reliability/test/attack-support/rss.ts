import { readFileSync } from "node:fs";

/** The resident set size of a process in bytes, from /proc (Linux), or undefined when gone. */
export function rssOf(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

/** Samples a child's RSS every `everyMs` until stopped; keeps every sample for the report. */
export function sampleRss(pid: number, everyMs = 100) {
  const samples: number[] = [];
  const take = () => {
    const rss = rssOf(pid);
    if (rss !== undefined) samples.push(rss);
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    samples,
    stop() {
      clearInterval(timer);
      take();
      return { peak: Math.max(...samples), first: samples[0] ?? 0, last: samples.at(-1) ?? 0, count: samples.length };
    },
  };
}

export const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
