import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { DUPLICATE_WINDOW_MS, watchInterrupts } from "../../src/cli/process-interrupts.js";

function fakeProcess() {
  const emitter = new EventEmitter();
  const exits: number[] = [];
  const notices: string[] = [];
  let time = 1_000;
  const target = {
    on: (event: "SIGINT" | "SIGTERM", listener: () => void) => emitter.on(event, listener),
    exit: (code: number): never => {
      exits.push(code);
      return undefined as never;
    },
  };
  const interrupts = watchInterrupts(target, { write: (text: string) => notices.push(text) }, () => time);
  const signal = interrupts.claim();
  return {
    interrupts,
    signal,
    exits,
    notices,
    send: (signal: "SIGINT" | "SIGTERM") => emitter.emit(signal),
    advance: (ms: number) => (time += ms),
  };
}

describe("watchInterrupts", () => {
  it("aborts the signal on the first SIGINT and leaves exit code 130, without exiting", () => {
    const fake = fakeProcess();
    expect(fake.signal.aborted).toBe(false);
    expect(fake.interrupts.exitCode).toBeUndefined();
    fake.send("SIGINT");
    expect(fake.signal.aborted).toBe(true);
    expect(fake.interrupts.received).toBe("SIGINT");
    expect(fake.interrupts.exitCode).toBe(130);
    expect(fake.exits).toEqual([]);
    expect(fake.notices).toHaveLength(1);
  });

  it("leaves exit code 143 for SIGTERM", () => {
    const fake = fakeProcess();
    fake.send("SIGTERM");
    expect(fake.interrupts.exitCode).toBe(143);
  });

  it("takes a repeat within the duplicate window as the same request (terminal and wrapper both sent it)", () => {
    const fake = fakeProcess();
    fake.send("SIGINT");
    fake.advance(DUPLICATE_WINDOW_MS - 1);
    fake.send("SIGINT");
    fake.send("SIGTERM");
    expect(fake.exits).toEqual([]);
    expect(fake.notices).toHaveLength(1);
  });

  it("stops at once on the first signal when no command claimed it (nothing to cancel)", () => {
    const emitter = new EventEmitter();
    const exits: number[] = [];
    const interrupts = watchInterrupts(
      {
        on: (event: "SIGINT" | "SIGTERM", listener: () => void) => emitter.on(event, listener),
        exit: (code: number): never => {
          exits.push(code);
          return undefined as never;
        },
      },
      { write: () => {} },
    );
    emitter.emit("SIGTERM");
    expect(exits).toEqual([143]);
    expect(interrupts.exitCode).toBe(143);
  });

  it("stops at once, with the first signal's code, on a repeat after the window", () => {
    const fake = fakeProcess();
    fake.send("SIGTERM");
    fake.advance(DUPLICATE_WINDOW_MS);
    fake.send("SIGINT");
    expect(fake.exits).toEqual([143]);
  });
});
