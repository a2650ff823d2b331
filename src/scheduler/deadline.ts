// Nested time budgets: a call's deadline is the earliest of its own timeout, what remains of
// its run's budget and what remains of the session's. Which budget binds is reported, so a
// timeout message can say whether to raise the tool's timeout or to split the program.

/** Absolute deadlines (epoch ms, from `Date.now()`) of the budgets a call is nested in. */
export interface Budgets {
  readonly runDeadlineAt?: number | undefined;
  readonly sessionDeadlineAt?: number | undefined;
}

/** The deadline that binds a call, and which budget it comes from. */
export interface CallDeadline {
  /** Epoch milliseconds. */
  readonly at: number;
  readonly source: "tool" | "run" | "session";
}

/**
 * The earliest of `now + toolTimeoutMs`, the run's deadline and the session's deadline.
 * On a tie the narrower budget (tool, then run) is named.
 */
export function computeDeadline(now: number, toolTimeoutMs: number, budgets: Budgets): CallDeadline {
  let deadline: CallDeadline = { at: now + toolTimeoutMs, source: "tool" };
  if (budgets.runDeadlineAt !== undefined && budgets.runDeadlineAt < deadline.at) {
    deadline = { at: budgets.runDeadlineAt, source: "run" };
  }
  if (budgets.sessionDeadlineAt !== undefined && budgets.sessionDeadlineAt < deadline.at) {
    deadline = { at: budgets.sessionDeadlineAt, source: "session" };
  }
  return deadline;
}
