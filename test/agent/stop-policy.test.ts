import { describe, expect, it } from "vitest";
import type { ModelTurn, StopReason } from "../../src/agent/model-adapter.js";
import { decideTurn } from "../../src/agent/stop-policy.js";

function turn(stopReason: StopReason, withCall = false): ModelTurn {
  return {
    content: withCall ? [{ type: "tool_call", id: "c", name: "t", input: {} }] : [{ type: "text", text: "x" }],
    stopReason,
    rawStopReason: stopReason,
    usage: { input: 0, output: 0, cacheRead: 0, cacheCreation: 0 },
  };
}

describe("decideTurn", () => {
  it("has an explicit action for every stop reason", () => {
    expect(decideTurn(turn("end_turn"))).toEqual({ action: "finish" });
    expect(decideTurn(turn("stop_sequence"))).toEqual({ action: "finish" });
    expect(decideTurn(turn("tool_use", true))).toEqual({ action: "run-tools" });
    expect(decideTurn(turn("max_tokens", true))).toEqual({ action: "continue-truncated" });
    expect(decideTurn(turn("pause_turn"))).toEqual({ action: "resume" });
    expect(decideTurn(turn("refusal", true))).toMatchObject({ action: "stop", status: "refused" });
    expect(decideTurn(turn("context_exceeded"))).toMatchObject({ action: "stop", status: "context_exceeded" });
    expect(decideTurn(turn("unknown"))).toMatchObject({ action: "stop", status: "incomplete" });
  });

  it("runs tools only for a tool_use (or paused) turn that has calls", () => {
    expect(decideTurn(turn("tool_use", false))).toMatchObject({ action: "stop", status: "incomplete" });
    expect(decideTurn(turn("pause_turn", true))).toEqual({ action: "run-tools" });
    for (const reason of [
      "end_turn",
      "max_tokens",
      "stop_sequence",
      "refusal",
      "context_exceeded",
      "unknown",
    ] as const) {
      expect(decideTurn(turn(reason, true)).action).not.toBe("run-tools");
    }
  });

  it("stops on max_tokens under onMaxTokens: stop, or once the consecutive truncations reach the limit", () => {
    expect(decideTurn(turn("max_tokens"), { onMaxTokens: "stop" })).toMatchObject({
      action: "stop",
      status: "max_tokens",
    });
    expect(decideTurn(turn("max_tokens"), { maxConsecutiveTruncations: 2 }, 1)).toEqual({
      action: "continue-truncated",
    });
    expect(decideTurn(turn("max_tokens"), { maxConsecutiveTruncations: 2 }, 2)).toMatchObject({
      action: "stop",
      status: "max_tokens",
    });
  });
});
