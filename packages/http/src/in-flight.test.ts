import { describe, expect, it } from "vitest";
import { InFlight } from "./in-flight.js";

describe("InFlight", () => {
  it("counts requests until each ends (ending twice is harmless) and wakes whenIdle", async () => {
    const inFlight = new InFlight();
    const endA = inFlight.begin();
    const endB = inFlight.begin();
    const idle = inFlight.whenIdle(5_000);
    endA();
    endA();
    expect(inFlight.count).toBe(1);
    endB();
    await expect(idle).resolves.toBe(true);
    expect(inFlight.count).toBe(0);
  });

  it("whenIdle gives up after its timeout", async () => {
    const inFlight = new InFlight();
    inFlight.begin();
    await expect(inFlight.whenIdle(20)).resolves.toBe(false);
  });

  it("abortAll aborts the requests still in flight, and those that begin later, not those that ended", () => {
    const inFlight = new InFlight();
    const ended = new AbortController();
    const running = new AbortController();
    inFlight.begin(ended)();
    inFlight.begin(running);
    inFlight.abortAll("stopping");
    expect(ended.signal.aborted).toBe(false);
    expect(running.signal.reason).toBe("stopping");
    const late = new AbortController();
    inFlight.begin(late);
    expect(late.signal.reason).toBe("stopping");
  });
});
