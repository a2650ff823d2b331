// A run's limits from a base and overrides: the one place limit options are read and refused.
// Every override must be a known limit and a positive finite number, and the memory limit must
// fit the run queue's budget, or the run could never start. Throws OPTION_INVALID, before any run.

import { SwitchyardError, shownValue } from "../errors.js";
import { MAX_TIMER_MS } from "../timer-limit.js";
import type { RunLimits } from "./run-program.js";

/**
 * `base` with `overrides` applied (undefined values leave the base's). Throws SwitchyardError
 * OPTION_INVALID for an unknown key, a value that is not a positive finite number, or a
 * `memoryLimitMb` over `memoryBudgetMb` (the run queue's); `label` names the option in the message.
 */
export function resolveLimits(
  base: RunLimits,
  overrides: Partial<RunLimits> | undefined,
  label: string,
  memoryBudgetMb: number,
): RunLimits {
  const limits = applyOverrides(base, overrides, label);
  if (limits.memoryLimitMb > memoryBudgetMb) {
    throw new SwitchyardError(
      "OPTION_INVALID",
      `${label}.memoryLimitMb (${limits.memoryLimitMb}) is over the run queue's memoryBudgetMb (${memoryBudgetMb}); lower it or raise runQueue.memoryBudgetMb.`,
    );
  }
  return limits;
}

function applyOverrides(base: RunLimits, overrides: Partial<RunLimits> | undefined, label: string): RunLimits {
  if (overrides === undefined) return base;
  const limits = { ...base };
  for (const [key, value] of Object.entries(overrides)) {
    if (!(key in base))
      throw new SwitchyardError(
        "OPTION_INVALID",
        `${label}.${key} is not a known limit; known: ${Object.keys(base).join(", ")}.`,
      );
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
      throw new SwitchyardError(
        "OPTION_INVALID",
        `${label}.${key} must be a positive number, got ${shownValue(value)}.`,
      );
    }
    if (key.endsWith("Ms") && value > MAX_TIMER_MS) {
      throw new SwitchyardError(
        "OPTION_INVALID",
        `${label}.${key} must be at most ${MAX_TIMER_MS} ms (about 24.8 days, the longest timer Node sets), got ${value}.`,
      );
    }
    (limits as Record<string, number>)[key] = value;
  }
  return limits;
}
