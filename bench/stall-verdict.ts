// The verdicts of bench:host-stalls, apart from its measuring so a test can hold them: a lag row
// passes when its lag stays under the target, stretched by the slowdown and plus the idle lag the
// same process showed in the same run (on a loaded machine the scheduler alone delays timers by
// tens of ms and stretches every block), a timing row when its least CPU time is under its target.
// Every verdict prints its margin. The slowdown is measured here too, so a child process that
// reports its own lag (session-start-lag.ts) is judged by its own conditions.

/** One row's verdict: what was measured, the limit it was held to, and the margin left (negative on a miss). */
export interface StallVerdict {
  readonly measuredMs: number;
  readonly limitMs: number;
  readonly marginMs: number;
  readonly pass: boolean;
  /** How the limit was made, e.g. `50 + 8.1 idle`. */
  readonly limitText: string;
}

/**
 * A lag row: `lagMs` (the worst round) against `targetMs` stretched by `slowdown` (wall time over
 * CPU time of a calibration spin in the same run: 1 on an idle machine, 8 when 8 runnable threads
 * share a core, so a 50 ms block shows as 400 ms of lag), plus the run's idle lag `idleMs`.
 */
export function judgeLag(lagMs: number, targetMs: number, idleMs: number, slowdown = 1): StallVerdict {
  const factor = Math.max(1, slowdown);
  const limitMs = targetMs * factor + idleMs;
  return verdict(lagMs, limitMs, `${targetMs} × ${factor.toFixed(1)} slowdown + ${idleMs.toFixed(1)} idle`);
}

/** A timing row: the least CPU time of `roundsCpuMs` against `targetMs` (the work's own cost; load only adds to it). */
export function judgeTiming(roundsCpuMs: readonly number[], targetMs: number): StallVerdict {
  return verdict(Math.min(...roundsCpuMs), targetMs, `${targetMs} of CPU, least of ${roundsCpuMs.length}`);
}

/** `measured 12.3 ms, limit 58.1 ms (50 + 8.1 idle), margin 45.8 ms PASS`. */
export function formatVerdict(result: StallVerdict): string {
  const margin = `${result.marginMs >= 0 ? "" : "-"}${Math.abs(result.marginMs).toFixed(1)}`;
  return (
    `${result.measuredMs.toFixed(1)} ms, limit ${result.limitMs.toFixed(1)} ms (${result.limitText}), ` +
    `margin ${margin} ms ${result.pass ? "PASS" : "MISS"}`
  );
}

/** The process exit code for a run's verdicts: 1 when any row missed its limit (or none ran), else 0. */
export function exitCodeOf(verdicts: readonly StallVerdict[]): 0 | 1 {
  return verdicts.length > 0 && verdicts.every((result) => result.pass) ? 0 : 1;
}

function verdict(measuredMs: number, limitMs: number, limitText: string): StallVerdict {
  const marginMs = limitMs - measuredMs;
  return { measuredMs, limitMs, marginMs, pass: Number.isFinite(measuredMs) && marginMs >= 0, limitText };
}

/**
 * Wall time over CPU time of a busy spin on this thread (median of 3 spins of 100 ms): how much
 * longer than its CPU cost any synchronous block takes on this machine now. About 1 when idle.
 */
export function measureSlowdown(): number {
  const ratios: number[] = [];
  for (let spin = 0; spin < 3; spin++) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    while (performance.now() - started < 100) {
      // Spinning: the CPU this thread gets in 100 ms of wall time.
    }
    const used = process.cpuUsage(cpu);
    ratios.push((performance.now() - started) / Math.max(1, (used.user + used.system) / 1000));
  }
  return ratios.sort((a, b) => a - b)[1] ?? 1;
}
