import { describe, expect, it } from "vitest";
import { computeDeadline } from "../../src/scheduler/deadline.js";

describe("computeDeadline", () => {
  const now = 1_000_000;

  it("uses the tool's timeout when no budget is set", () => {
    expect(computeDeadline(now, 500, {})).toEqual({ at: now + 500, source: "tool" });
  });

  it("names the run's deadline when it comes before the tool's timeout and the session's deadline", () => {
    expect(computeDeadline(now, 500, { runDeadlineAt: now + 100, sessionDeadlineAt: now + 200 })).toEqual({
      at: now + 100,
      source: "run",
    });
  });

  it("names the session's deadline when it is the earliest of the three", () => {
    expect(computeDeadline(now, 500, { runDeadlineAt: now + 300, sessionDeadlineAt: now + 200 })).toEqual({
      at: now + 200,
      source: "session",
    });
  });

  it("names the narrower budget on a tie: tool before run before session", () => {
    expect(computeDeadline(now, 100, { runDeadlineAt: now + 100, sessionDeadlineAt: now + 100 })).toEqual({
      at: now + 100,
      source: "tool",
    });
    expect(computeDeadline(now, 500, { runDeadlineAt: now + 100, sessionDeadlineAt: now + 100 })).toEqual({
      at: now + 100,
      source: "run",
    });
  });

  it("keeps a budget that has already passed, so the call times out at once", () => {
    expect(computeDeadline(now, 500, { runDeadlineAt: now - 10 })).toEqual({ at: now - 10, source: "run" });
  });

  it("lets an infinite tool timeout leave the binding to the budgets", () => {
    expect(computeDeadline(now, Number.POSITIVE_INFINITY, {})).toEqual({
      at: Number.POSITIVE_INFINITY,
      source: "tool",
    });
    expect(computeDeadline(now, Number.POSITIVE_INFINITY, { sessionDeadlineAt: now + 5 })).toEqual({
      at: now + 5,
      source: "session",
    });
  });
});
