import { describe, expect, it } from "vitest";
import { linkedAbort } from "./linked-abort.js";

describe("linkedAbort", () => {
  it("aborts with the first source's reason", () => {
    const a = new AbortController();
    const b = new AbortController();
    const link = linkedAbort([a.signal, b.signal]);
    b.abort("b went");
    expect(link.controller.signal.aborted).toBe(true);
    expect(link.controller.signal.reason).toBe("b went");
  });

  it("starts aborted when a source already is", () => {
    const link = linkedAbort([AbortSignal.abort("early")]);
    expect(link.controller.signal.reason).toBe("early");
  });

  it("after dispose no longer follows its sources (nothing stays attached to a long-lived signal)", () => {
    const stop = new AbortController();
    const link = linkedAbort([stop.signal]);
    link.dispose();
    stop.abort();
    expect(link.controller.signal.aborted).toBe(false);
  });
});
