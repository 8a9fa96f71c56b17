import { describe, expect, it } from "vitest";
import { Cancellation } from "./cancellation.js";

describe("Cancellation", () => {
  it("runs its listeners once at the abort, with the first reason kept", () => {
    const cancel = new Cancellation();
    const heard: unknown[] = [];
    const gone = () => heard.push("removed");
    cancel.addEventListener("abort", () => heard.push(cancel.reason));
    cancel.addEventListener("abort", gone);
    cancel.removeEventListener("abort", gone);
    cancel.abort("client gone");
    cancel.abort("later");
    expect(heard).toEqual(["client gone"]);
    expect(cancel.aborted).toBe(true);
  });

  it("gives an AbortSignal that follows it, made before or after the abort", () => {
    const before = new Cancellation();
    const signal = before.signal;
    expect(signal.aborted).toBe(false);
    before.abort("stop");
    expect(signal.reason).toBe("stop");
    const after = new Cancellation();
    after.abort("late");
    expect(after.signal.aborted).toBe(true);
    expect(after.signal.reason).toBe("late");
  });
});
