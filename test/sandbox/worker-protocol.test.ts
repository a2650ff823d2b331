import { describe, expect, it } from "vitest";
import type { GuestBindings } from "../../src/sandbox/sandbox-executor.js";
import { BINDING_CROSSINGS, crossingArguments, FrameBatcher } from "../../src/sandbox/worker-protocol.js";

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe("worker protocol", () => {
  it("sends the frames of one event-loop turn as one message, in order", async () => {
    const sent: number[][] = [];
    const batcher = new FrameBatcher<number>((frames) => sent.push(frames));
    for (let frame = 0; frame < 50; frame++) batcher.push(frame);
    expect(sent).toEqual([]);
    await nextTurn();
    batcher.push(50);
    await nextTurn();
    expect(sent).toEqual([Array.from({ length: 50 }, (_, index) => index), [50]]);
  });

  it("holds frames until released, then sends them first", async () => {
    const sent: string[][] = [];
    const batcher = new FrameBatcher<string>((frames) => sent.push(frames), { held: true });
    batcher.push("init");
    batcher.push("start");
    await nextTurn();
    expect(sent).toEqual([]);
    batcher.release();
    batcher.push("answer");
    await nextTurn();
    expect(sent).toEqual([["init", "start"], ["answer"]]);
  });

  it("gives every guest binding a way to cross", () => {
    // A key of GuestBindings without a crossing fails the type check of worker-protocol.ts;
    // this names them, so a new binding is a conscious change here too.
    const names: (keyof GuestBindings)[] = ["submit", "wait", "log", "config"];
    expect(Object.keys(BINDING_CROSSINGS).sort()).toEqual([...names].sort());
  });

  it("lets only strings cross as binding arguments, anything else as null", () => {
    expect(crossingArguments(["tools.a", '{"x":1}', 42, undefined, { toString: () => "x" }, Symbol("s")])).toEqual([
      "tools.a",
      '{"x":1}',
      null,
      null,
      null,
      null,
    ]);
  });
});
