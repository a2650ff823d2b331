import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RunTimer } from "../../src/sandbox/run-timer.js";

describe("RunTimer: the host's one wake-up per run", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const answered = (value: Promise<string> | string) => {
    const box: { text?: string } = {};
    void Promise.resolve(value).then((text) => (box.text = text));
    return box;
  };

  it("answers after the delay asked", async () => {
    const timer = new RunTimer(() => Number.POSITIVE_INFINITY);
    const box = answered(timer.wake("100"));
    await vi.advanceTimersByTimeAsync(99);
    expect(box.text).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(box.text).toBe("null");
    expect(timer.pending).toBe(false);
  });

  it("answers a wake-up already due at once, without a host timer (Node's would wait 1 ms)", () => {
    const timer = new RunTimer(() => Number.POSITIVE_INFINITY);
    expect(typeof timer.wake("0")).toBe("string");
    expect(vi.getTimerCount()).toBe(0);
  });

  it("answers a replaced request at once, keeping one host timer", async () => {
    const timer = new RunTimer(() => Number.POSITIVE_INFINITY);
    const first = answered(timer.wake("5000"));
    const second = answered(timer.wake("50"));
    await vi.advanceTimersByTimeAsync(0);
    expect(first.text).toBeDefined();
    expect(second.text).toBeUndefined();
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(50);
    expect(second.text).toBeDefined();
  });

  it.each([
    ["NaN", "NaN", 0],
    ["a negative delay", "-5", 0],
    ["text", "soon", 0],
    ["a delay past the deadline", "1e12", 205],
    ["Infinity", "Infinity", 205],
  ])("reads %s (%j) as a delay of %i ms", async (_label, text, expectedMs) => {
    const deadlineAt = Date.now() + 200;
    const timer = new RunTimer(() => deadlineAt);
    const box = answered(timer.wake(text));
    await vi.advanceTimersByTimeAsync(Math.max(0, expectedMs - 1));
    if (expectedMs > 0) expect(box.text).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(box.text).toBeDefined();
  });

  it("answers the pending request at once on close, clears its timer and holds none for later requests", async () => {
    const timer = new RunTimer(() => Number.POSITIVE_INFINITY);
    const box = answered(timer.wake("5000"));
    timer.close();
    await vi.advanceTimersByTimeAsync(0);
    expect(box.text).toBe("null");
    expect(vi.getTimerCount()).toBe(0);
    expect(timer.wake("1000")).toBe("null");
    expect(vi.getTimerCount()).toBe(0);
    expect(timer.pending).toBe(false);
  });
});
