// The HTTP figures of the report a run is about to replace (docs/benchmarks.md by default). They
// are read before anything runs, so the new report can say whether the 2025-era rows moved.
import { readFileSync } from "node:fs";

const number = (text) => Number(text.replace(/,/g, ""));

/**
 * The median and min–max req/s of every row of the report's HTTP tables, by tool and row label:
 * `{ file, date, quick, tools: { add: { "Toolshed stateless": { median, min, max } } } }`.
 * Undefined when the file is missing or has no HTTP section.
 */
export function readPreviousHttp(file) {
  let text;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  const section = text.split(/^## /m).find((part) => part.startsWith("HTTP throughput"));
  if (!section) return undefined;
  const tools = {};
  for (const part of section.split(/^### /m).slice(1)) {
    const tool = part.match(/^`([^`]+)`/)?.[1];
    if (!tool) continue;
    const rows = {};
    for (const line of part.split("\n")) {
      // | label | median | min–max | ...
      const cells = line
        .split("|")
        .slice(1, -1)
        .map((c) => c.trim());
      const range = cells[2]?.match(/^([\d,.]+)–([\d,.]+)$/);
      if (!range || !/^[\d,.]+$/.test(cells[1])) continue;
      rows[cells[0]] = { median: number(cells[1]), min: number(range[1]), max: number(range[2]) };
    }
    if (Object.keys(rows).length > 0) tools[tool] = rows;
  }
  if (Object.keys(tools).length === 0) return undefined;
  return {
    file,
    date: text.match(/ on (\d{4}-\d\d-\d\d \d\d:\d\d UTC)/)?.[1] ?? "an unknown date",
    quick: text.includes("quick mode (figures only"),
    tools,
  };
}
