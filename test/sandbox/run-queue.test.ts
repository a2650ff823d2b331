import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RunQueue } from "../../src/sandbox/run-queue.js";

/** Enters and asks for admission; records the label once admitted. */
function request(
  queue: RunQueue,
  key: string,
  memoryMb: number,
  admitted: string[],
  label: string,
  signal?: AbortSignal,
) {
  const ticket = queue.enter(key);
  if (ticket === undefined) throw new Error(`${label} was refused`);
  const release = ticket.admit(memoryMb, signal).then((done) => {
    if (done !== undefined) admitted.push(label);
    return done;
  });
  return { ticket, release };
}

/** Lets admissions already resolved run their callbacks. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("RunQueue: fair order", () => {
  it("admits waiting runs round-robin across caller keys, first come first served within a key", async () => {
    const queue = new RunQueue({ memoryBudgetMb: 1 });
    const admitted: string[] = [];
    const labels = ["A1", "A2", "A3", "B1", "C1", "C2"];
    const runs = labels.map((label) => request(queue, label[0]!, 1, admitted, label));
    for (let index = 0; index < runs.length; index++) {
      await settle();
      // One run fits at a time: release the one admitted last, and the next turn comes.
      expect(admitted).toHaveLength(index + 1);
      (await runs[labels.indexOf(admitted[index]!)]!.release)?.();
    }
    expect(admitted).toEqual(["A1", "A2", "B1", "C1", "A3", "C2"]);
  });

  it("gives a caller that floods the queue no more turns than one that sends a single run", async () => {
    const queue = new RunQueue({ memoryBudgetMb: 1 });
    const admitted: string[] = [];
    const first = request(queue, "flood", 1, admitted, "flood-0");
    const flood = Array.from({ length: 20 }, (_, index) => request(queue, "flood", 1, admitted, `flood-${index + 1}`));
    const single = request(queue, "single", 1, admitted, "single");
    (await first.release)?.();
    await settle();
    (await flood[0]!.release)?.();
    await settle();
    // The flood's next run had its turn; the single run comes right after, not after 20 more.
    expect(admitted.slice(0, 3)).toEqual(["flood-0", "flood-1", "single"]);
    (await single.release)?.();
    for (const run of flood) (await run.release)?.();
  });

  it("does not let smaller runs overtake one that waits for memory", async () => {
    const queue = new RunQueue({ memoryBudgetMb: 4 });
    const admitted: string[] = [];
    const big = request(queue, "a", 3, admitted, "a-3");
    const waiting = request(queue, "b", 2, admitted, "b-2");
    const small = request(queue, "c", 1, admitted, "c-1");
    await settle();
    // c-1 would fit beside a-3, but b-2 has the turn and must not starve.
    expect(admitted).toEqual(["a-3"]);
    (await big.release)?.();
    await settle();
    expect(admitted).toEqual(["a-3", "b-2", "c-1"]);
    expect(queue.stats()).toEqual({ waiting: 0, queued: 0, running: 2, memoryInUseMb: 3 });
    (await waiting.release)?.();
    (await small.release)?.();
    expect(queue.stats()).toEqual({ waiting: 0, queued: 0, running: 0, memoryInUseMb: 0 });
  });
});

describe("RunQueue: the bound and the budget", () => {
  it("refuses a place once maxQueuedRuns runs wait, and takes runs again as places free up", async () => {
    const queue = new RunQueue({ memoryBudgetMb: 1, maxQueuedRuns: 2 });
    const admitted: string[] = [];
    const running = request(queue, "a", 1, admitted, "running");
    await settle();
    const second = request(queue, "a", 1, admitted, "second");
    const third = queue.enter("b");
    expect(third).toBeDefined();
    expect(queue.enter("c")).toBeUndefined();
    expect(queue.stats().waiting).toBe(2);
    // A place given up (the program did not compile) is free again.
    third!.leave();
    third!.leave();
    expect(queue.stats().waiting).toBe(1);
    expect(queue.enter("c")).toBeDefined();
    (await running.release)?.();
    await settle();
    expect(admitted).toEqual(["running", "second"]);
    (await second.release)?.();
  });

  it("lets a run whose signal fires while it waits leave without running, and admits the next", async () => {
    const queue = new RunQueue({ memoryBudgetMb: 4 });
    const admitted: string[] = [];
    const holder = request(queue, "a", 2, admitted, "holder");
    const controller = new AbortController();
    const cancelled = request(queue, "b", 3, admitted, "cancelled", controller.signal);
    const next = request(queue, "c", 2, admitted, "next");
    await settle();
    expect(admitted).toEqual(["holder"]);
    controller.abort();
    expect(await cancelled.release).toBeUndefined();
    await settle();
    expect(admitted).toEqual(["holder", "next"]);
    expect(queue.stats()).toEqual({ waiting: 0, queued: 0, running: 2, memoryInUseMb: 4 });
    const aborted = new AbortController();
    aborted.abort();
    expect(await queue.enter("d")!.admit(1, aborted.signal)).toBeUndefined();
    expect(queue.stats().waiting).toBe(0);
    (await holder.release)?.();
    (await next.release)?.();
  });

  it("refuses a memory limit larger than the budget with OPTION_INVALID and frees the place", () => {
    const queue = new RunQueue({ memoryBudgetMb: 100 });
    const ticket = queue.enter("a")!;
    expect(() => ticket.admit(200)).toThrow(expect.objectContaining({ code: "OPTION_INVALID" }));
    expect(queue.stats().waiting).toBe(0);
    expect(() => new RunQueue({ memoryBudgetMb: 0 })).toThrow(expect.objectContaining({ code: "OPTION_INVALID" }));
    expect(() => new RunQueue({ maxQueuedRuns: Number.NaN })).toThrow(/maxQueuedRuns/);
  });

  it("never admits more memory than the budget, and admits every run once all are released", async () => {
    const operation = fc.oneof(
      fc.record({
        kind: fc.constant("enter" as const),
        key: fc.constantFrom("a", "b", "c"),
        memoryMb: fc.integer({ min: 1, max: 10 }),
        cancel: fc.boolean(),
      }),
      fc.record({ kind: fc.constant("release" as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant("abort" as const), pick: fc.nat() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { maxLength: 60 }), async (operations) => {
        const budget = 10;
        const queue = new RunQueue({ memoryBudgetMb: budget, maxQueuedRuns: 1_000 });
        const admitted: string[] = [];
        const releases: (() => void)[] = [];
        const controllers: AbortController[] = [];
        const pending: Promise<unknown>[] = [];
        let entered = 0;
        const check = () => {
          const stats = queue.stats();
          expect(stats.memoryInUseMb).toBeLessThanOrEqual(budget);
          expect(stats.memoryInUseMb).toBeGreaterThanOrEqual(0);
        };
        for (const step of operations) {
          if (step.kind === "enter") {
            const controller = new AbortController();
            if (step.cancel) controllers.push(controller);
            const run = request(queue, step.key, step.memoryMb, admitted, `r${entered++}`, controller.signal);
            pending.push(run.release.then((release) => release && releases.push(release)));
          } else if (step.kind === "release" && releases.length > 0) {
            releases.splice(step.pick % releases.length, 1)[0]!();
          } else if (step.kind === "abort" && controllers.length > 0) {
            controllers.splice(step.pick % controllers.length, 1)[0]!.abort();
          }
          await settle();
          check();
        }
        // Release until nothing waits: every run is admitted or left through its signal.
        while (queue.stats().waiting > 0 || releases.length > 0) {
          releases.shift()?.();
          await settle();
          check();
        }
        await Promise.all(pending);
        expect(queue.stats()).toEqual({ waiting: 0, queued: 0, running: 0, memoryInUseMb: 0 });
      }),
      { numRuns: 200 },
    );
  });
});
