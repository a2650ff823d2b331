// The CPU meter's tick runs only while a run is watched: no run, no interval.

import type ivm from "isolated-vm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { watchCpu } from "../../src/sandbox/cpu-meter.js";

/** An isolate whose reading the test moves by hand (ns, as isolated-vm's `cpuTime`). */
const fakeIsolate = (): { isolate: ivm.Isolate; work: (ms: number) => void } => {
  const state = { isDisposed: false, cpuTime: 0n };
  return { isolate: state as unknown as ivm.Isolate, work: (ms) => (state.cpuTime += BigInt(ms * 1e6)) };
};

afterEach(() => {
  vi.useRealTimers();
});

describe("watchCpu", () => {
  it("keeps one tick while runs are watched and none once the last watch stops", () => {
    vi.useFakeTimers();
    expect(vi.getTimerCount()).toBe(0);
    const first = watchCpu(fakeIsolate().isolate, 1_000, () => {});
    const second = watchCpu(fakeIsolate().isolate, 1_000, () => {});
    expect(vi.getTimerCount()).toBe(1);
    first.stop();
    expect(vi.getTimerCount()).toBe(1);
    second.stop();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("never bills more than the isolate's own reading, and stops its tick after the run ends", () => {
    vi.useFakeTimers();
    const { isolate, work } = fakeIsolate();
    const exceeded = vi.fn();
    const watch = watchCpu(isolate, 1_000, exceeded);
    for (let tick = 0; tick < 20; tick++) {
      work(5);
      vi.advanceTimersByTime(10);
    }
    const billed = watch.stop();
    expect(billed).toBeLessThanOrEqual(100);
    expect(exceeded).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
  });
});
