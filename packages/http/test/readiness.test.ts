import { definePack } from "@toolshed/schema";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpApp, type HttpApp, type ReadinessReport } from "../src/index.js";

const silent = { error() {}, warn() {}, info() {}, debug() {} };
const apps: HttpApp[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close({ graceMs: 0 })));
});

async function probe(report: ReadinessReport | boolean) {
  const app = createHttpApp({ packs: [definePack({ name: "empty", tools: [] })], logger: silent, ready: () => report });
  apps.push(app);
  const ready = await app.fetch(new Request("http://localhost/readyz"));
  const health = await app.fetch(new Request("http://localhost/healthz"));
  return { status: ready.status, body: await ready.json(), health: health.status };
}

describe("/readyz with a reason (issue 18 items 5 and 8)", () => {
  it("a store that cannot write: 503 with the condition and reason; /healthz stays 200", async () => {
    const reason = "the database cannot be written: the disk holding it is full, or the file reached its size limit";
    expect(await probe({ ready: false, database: "cannot_write", reason })).toEqual({
      status: 503,
      body: { status: "not ready", database: "cannot_write", reason },
      health: 200,
    });
  });

  it("a database that cannot be reached: 503 saying so", async () => {
    expect(await probe({ ready: false, database: "unreachable", reason: "cannot reach the database" })).toEqual({
      status: 503,
      body: { status: "not ready", database: "unreachable", reason: "cannot reach the database" },
      health: 200,
    });
  });

  it("a busy database: 200, ready, with the detail", async () => {
    const reason = "the database is busy: all 2 connections of this instance are in use";
    expect(await probe({ ready: true, database: "busy", reason })).toEqual({
      status: 200,
      body: { status: "ready", database: "busy", reason },
      health: 200,
    });
  });

  it("a plain boolean keeps its answers", async () => {
    expect((await probe(true)).body).toEqual({ status: "ready" });
    expect(await probe(false)).toMatchObject({ status: 503, body: { status: "not ready" } });
  });
});
