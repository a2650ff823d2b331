import { describe, expect, it } from "vitest";
import { axisTicks } from "../../browser/axis-ticks.js";

describe("axisTicks", () => {
  // Spans from a microsecond-scale burst to a ten-minute sweep, each starting early and late in
  // a run (a late start is what made "+1.20 s" repeat), at the tick counts of narrow and wide pages.
  const spans = [0.004, 0.05, 0.3, 1, 7, 42, 250, 999, 1_000, 3_333, 60_000, 600_000];
  const offsets = [0, 0.37, 12.5, 998, 1_234.5, 59_999, 3_600_000];
  const counts = [2, 5, 9, 14, 30];

  it("labels every tick of an axis differently at every span, offset and width", () => {
    for (const span of spans) {
      for (const offset of offsets) {
        for (const count of counts) {
          const labels = axisTicks(offset, span, count).map((tick) => tick.label);
          expect(new Set(labels).size, `${offset} + ${span} ms, ${count} ticks: ${labels.join(" ")}`).toBe(
            labels.length,
          );
        }
      }
    }
  });

  it("uses no more decimals than the step needs and switches to seconds from a second on", () => {
    expect(axisTicks(0, 100, 5).map((tick) => tick.label)).toEqual([
      "+0 ms",
      "+20 ms",
      "+40 ms",
      "+60 ms",
      "+80 ms",
      "+100 ms",
    ]);
    expect(axisTicks(1_200, 0.2, 2).map((tick) => tick.label)).toEqual(["+1.2000 s", "+1.2001 s", "+1.2002 s"]);
    // A late, unaligned start: ticks on round times, not 1.2345, 1.2355, ... rounded onto each other.
    expect(axisTicks(1_234.5, 7, 9).map((tick) => tick.label)).toEqual([
      "+1.235 s",
      "+1.236 s",
      "+1.237 s",
      "+1.238 s",
      "+1.239 s",
      "+1.240 s",
      "+1.241 s",
    ]);
    expect(axisTicks(500, 1_000, 2).map((tick) => tick.label)).toEqual(["+0.5 s", "+1.0 s", "+1.5 s"]);
  });

  it("keeps every tick inside the span", () => {
    for (const span of spans) {
      for (const offset of offsets) {
        const ticks = axisTicks(offset, span, 7);
        expect(ticks.length).toBeGreaterThanOrEqual(2);
        for (const tick of ticks) {
          expect(tick.atMs).toBeGreaterThanOrEqual(0);
          expect(tick.atMs).toBeLessThanOrEqual(span * (1 + 1e-9));
        }
      }
    }
  });
});
