// How a rate limit is checked from the outside: the most timestamps (slot grants, tool calls) that
// fall in any window of its length. Shared by the in-process limiter's tests and the fleet's.

/** The most `times` (in any order) that fall in any half-open window [t, t + windowMs). */
export function busiestWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while (sorted[end]! - sorted[start]! >= windowMs) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}
