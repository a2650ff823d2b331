// The time axis of the timeline page: where its ticks go and what they say. Every label of one
// axis is distinct at every scale (a 0.05 ms step 1.2 s into a run must not print "+1.20 s"
// ten times): the unit follows the largest label, the decimals follow the step. Pure, no DOM.

/** One tick: its time from the axis start in ms, and its label (time since the run's start, a multiple of the step). */
export interface AxisTick {
  readonly atMs: number;
  readonly label: string;
}

/** Tick spacing of 1, 2 or 5 times a power of ten, about `count` ticks over `spanMs`. */
export function tickStep(spanMs: number, count: number): number {
  const raw = spanMs / Math.max(count, 1);
  const power = 10 ** Math.floor(Math.log10(raw));
  for (const factor of [1, 2, 5, 10]) if (factor * power >= raw) return factor * power;
  return 10 * power;
}

/**
 * The ticks of an axis `spanMs` long that starts `offsetMs` after the run began, about `count`
 * of them, labelled `+<time>` in ms under a second and in s from there, with as many decimals
 * as the step needs and no more.
 */
export function axisTicks(offsetMs: number, spanMs: number, count: number): AxisTick[] {
  const step = tickStep(spanMs, count);
  const inSeconds = offsetMs + spanMs >= 1000;
  const unit = inSeconds ? 1000 : 1;
  // A step of 1, 2 or 5 × 10^k in the unit needs max(0, -k) decimals to tell two ticks apart.
  const decimals = Math.min(Math.max(0, -Math.floor(Math.log10(step / unit) + 1e-9)), 9);
  const ticks: AxisTick[] = [];
  // Ticks sit on whole multiples of the step in the run's time, so each label is a round number
  // the decimals show exactly; counted in whole steps, so adding does not drift past the span.
  const first = Math.ceil(offsetMs / step - 1e-9);
  const last = Math.floor((offsetMs + spanMs) / step + 1e-9);
  for (let index = first; index <= last; index++) {
    const timeMs = index * step;
    ticks.push({
      atMs: Math.min(spanMs, Math.max(0, timeMs - offsetMs)),
      label: `+${(timeMs / unit).toFixed(decimals)} ${inSeconds ? "s" : "ms"}`,
    });
  }
  return ticks;
}
