import { describe, expect, it } from "vitest";
import { LockTable, type LockRequest, type ReleaseLocks } from "../../src/scheduler/lock-table.js";
import { drainMicrotasks } from "../helpers/pipeline-fixtures.js";

/** Acquires and records, in order, which labels have been granted. */
function recorder(table: LockTable) {
  const granted: string[] = [];
  const releases = new Map<string, ReleaseLocks>();
  const rejected: string[] = [];
  const acquire = (label: string, locks: readonly LockRequest[], signal?: AbortSignal): void => {
    table.acquire(locks, signal).then(
      (release) => {
        granted.push(label);
        releases.set(label, release);
      },
      () => rejected.push(label),
    );
  };
  const release = (label: string): void => {
    const releaseLocks = releases.get(label);
    if (releaseLocks === undefined) throw new Error(`${label} holds nothing`);
    releaseLocks();
  };
  return { granted, rejected, acquire, release };
}

const shared = (key: string): LockRequest => ({ key, mode: "shared" });
const exclusive = (key: string): LockRequest => ({ key, mode: "exclusive" });
const slot = (key: string, capacity: number): LockRequest => ({ key, mode: "slot", capacity });

describe("LockTable", () => {
  it("grants shared locks on one key together", async () => {
    const { granted, acquire } = recorder(new LockTable());
    acquire("r1", [shared("k")]);
    acquire("r2", [shared("k")]);
    acquire("r3", [shared("k")]);
    await drainMicrotasks();
    expect(granted).toEqual(["r1", "r2", "r3"]);
  });

  it("grants exclusive locks on one key one at a time, in arrival order", async () => {
    const { granted, acquire, release } = recorder(new LockTable());
    acquire("w1", [exclusive("k")]);
    acquire("w2", [exclusive("k")]);
    acquire("w3", [exclusive("k")]);
    await drainMicrotasks();
    expect(granted).toEqual(["w1"]);
    release("w1");
    await drainMicrotasks();
    expect(granted).toEqual(["w1", "w2"]);
    release("w2");
    await drainMicrotasks();
    expect(granted).toEqual(["w1", "w2", "w3"]);
  });

  it("never lets a later reader overtake an earlier waiting writer", async () => {
    const { granted, acquire, release } = recorder(new LockTable());
    acquire("r1", [shared("k")]);
    acquire("w", [exclusive("k")]);
    acquire("r2", [shared("k")]);
    await drainMicrotasks();
    expect(granted).toEqual(["r1"]);
    release("r1");
    await drainMicrotasks();
    expect(granted).toEqual(["r1", "w"]);
    release("w");
    await drainMicrotasks();
    expect(granted).toEqual(["r1", "w", "r2"]);
  });

  it("lets different keys' exclusive locks be held at once", async () => {
    const { granted, acquire } = recorder(new LockTable());
    acquire("a", [exclusive("x")]);
    acquire("b", [exclusive("y")]);
    await drainMicrotasks();
    expect(granted).toEqual(["a", "b"]);
  });

  it("grants at most `capacity` slots and hands freed slots out in arrival order", async () => {
    const { granted, acquire, release } = recorder(new LockTable());
    for (const label of ["s1", "s2", "s3", "s4"]) acquire(label, [slot("pool", 2)]);
    await drainMicrotasks();
    expect(granted).toEqual(["s1", "s2"]);
    release("s2");
    await drainMicrotasks();
    expect(granted).toEqual(["s1", "s2", "s3"]);
    release("s1");
    await drainMicrotasks();
    expect(granted).toEqual(["s1", "s2", "s3", "s4"]);
  });

  it("takes a waiter's keys all at once, so opposite acquisition orders cannot deadlock", async () => {
    const table = new LockTable();
    const { granted, acquire, release } = recorder(table);
    acquire("ab", [exclusive("a"), exclusive("b")]);
    acquire("ba", [exclusive("b"), exclusive("a")]);
    await drainMicrotasks();
    expect(granted).toEqual(["ab"]);
    release("ab");
    await drainMicrotasks();
    expect(granted).toEqual(["ab", "ba"]);
    release("ba");
    expect(table.heldKeys).toBe(0);
  });

  it("removes an aborted waiter without granting it, and lets the waiters behind it proceed", async () => {
    const table = new LockTable();
    const { granted, rejected, acquire, release } = recorder(table);
    const controller = new AbortController();
    acquire("holder", [shared("k")]);
    acquire("writer", [exclusive("k")], controller.signal);
    acquire("reader", [shared("k")]);
    await drainMicrotasks();
    expect(granted).toEqual(["holder"]);

    controller.abort();
    await drainMicrotasks();
    expect(rejected).toEqual(["writer"]);
    // The reader was only held back by the writer ahead of it.
    expect(granted).toEqual(["holder", "reader"]);

    release("holder");
    release("reader");
    await drainMicrotasks();
    expect(granted).not.toContain("writer");
    expect(table.heldKeys).toBe(0);
  });

  it("rejects at once with the signal's reason when the signal is already aborted, holding nothing", async () => {
    const table = new LockTable();
    const reason = new Error("gone");
    await expect(table.acquire([exclusive("k")], AbortSignal.abort(reason))).rejects.toBe(reason);
    expect(table.heldKeys).toBe(0);
  });

  it("ignores an abort that arrives after the grant", async () => {
    const table = new LockTable();
    const controller = new AbortController();
    const release = await table.acquire([exclusive("k")], controller.signal);
    controller.abort();
    expect(table.heldKeys).toBe(1);
    release();
    expect(table.heldKeys).toBe(0);
  });

  it("treats a second call of a release function as harmless", async () => {
    const table = new LockTable();
    const { granted, acquire } = recorder(table);
    const first = await table.acquire([shared("k")]);
    await table.acquire([shared("k")]);
    acquire("writer", [exclusive("k")]);
    first();
    first();
    await drainMicrotasks();
    // One reader still holds the key: a double release must not have freed it for the writer.
    expect(granted).toEqual([]);
    expect(table.heldKeys).toBe(1);
  });
});
