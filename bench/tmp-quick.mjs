// Ad-hoc: toolshed stateless vs raw node:http, same run, alternating.
import { HTTP_CONTENDERS } from "/work/main/bench/contenders/index.mjs";

const ids = (process.env.IDS ?? "toolshed,raw").split(",");
HTTP_CONTENDERS.splice(0, HTTP_CONTENDERS.length, ...HTTP_CONTENDERS.filter((c) => ids.includes(c.id)));
const { runHttpBench } = await import("/work/main/bench/http.mjs");
const { mkdtempSync } = await import("node:fs");
const db = process.env.DB;
const r = await runHttpBench({
  db,
  rounds: Number(process.env.ROUNDS ?? 2),
  seconds: 5,
  warmupSeconds: 1,
  connections: 20,
  log: (l) => console.error(l),
});
