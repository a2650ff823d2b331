import { readdirSync, readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { SwitchyardError } from "../../src/errors.js";
import { ProgramTypeChecker } from "../../src/program/type-check-program.js";
import { TypeChecker } from "../../src/program/type-checker.js";
import { WORKER_KILLER } from "../helpers/worker-killer.js";
import { watchEventLoop } from "../helpers/event-loop-gaps.js";

const DECLARATIONS = `
interface OrdersSearchInput { customerId: string; cursor?: string; pageSize?: number }
interface OrdersSearchOutput { orders: { id: string; amount: number }[]; nextCursor: string | null }
declare const console: { log(...args: unknown[]): void; info(...args: unknown[]): void; warn(...args: unknown[]): void; error(...args: unknown[]): void };
declare const tools: { orders: { search(input: OrdersSearchInput): Promise<OrdersSearchOutput>; get(input: { id: string }): Promise<{ id: string; total: number }> } };
`;

const PROGRAMS = [
  "const page = await tools.orders.search({ customerId: 'c', pageSze: 5 });\nreturn page;",
  "return (await tools.orders.get({ id: 'a' })).total;",
  "await tools.orders.cancel({ id: 'a' });",
  "const x = process.env.HOME;\nfetch(x);",
  "if (true) {",
  "(".repeat(100_000),
];

const checkers: TypeChecker[] = [];
const createChecker = (...options: ConstructorParameters<typeof TypeChecker>) => {
  const checker = new TypeChecker(...options);
  checkers.push(checker);
  return checker;
};
afterAll(async () => {
  await Promise.all(checkers.map((checker) => checker.close()));
});

/** The ids of this process's live child processes (Linux). */
function childPids(): number[] {
  return readdirSync("/proc/self/task").flatMap((task) =>
    readFileSync(`/proc/self/task/${task}/children`, "utf8").split(" ").filter(Boolean).map(Number),
  );
}

describe("TypeChecker", () => {
  it("keeps the event loop ticking during a cold check in the checker process", async () => {
    const checker = createChecker();
    const loop = watchEventLoop();
    const started = performance.now();
    const diagnostics = await checker.check(PROGRAMS[0] ?? "", DECLARATIONS);
    const elapsedMs = performance.now() - started;
    loop.stop();
    expect(diagnostics).toHaveLength(1);
    // A cold check takes hundreds of ms; on the main thread it would freeze the interval for all of it.
    expect(elapsedMs).toBeGreaterThan(100);
    expect(loop.ticks).toBeGreaterThan(elapsedMs / 5 / 4);
    expect(loop.longestGapMs).toBeLessThan(Math.min(200, elapsedMs / 2));
  });

  it("returns the same diagnostics as the in-process checker", async () => {
    const checker = createChecker();
    const inProcess = new ProgramTypeChecker();
    for (const program of PROGRAMS) {
      expect(await checker.check(program, DECLARATIONS)).toEqual(inProcess.check(program, DECLARATIONS));
    }
    inProcess.dispose();
  });

  it("resolves concurrent checks independently, each with its own diagnostics", async () => {
    const checker = createChecker();
    const results = await Promise.all([
      checker.check("return 1;", DECLARATIONS),
      checker.check("const a: string = 1;", DECLARATIONS),
      checker.check("await tools.orders.get({});", DECLARATIONS),
      checker.check("return 2;", DECLARATIONS),
    ]);
    expect(results[0]).toEqual([]);
    expect(results[1]).toEqual([expect.objectContaining({ code: 2322, line: 1, column: 7 })]);
    expect(results[2]).toEqual([expect.objectContaining({ code: 2345, line: 1 })]);
    expect(results[3]).toEqual([]);
  });

  it("rejects with SwitchyardError when the declarations do not compile, and keeps working", async () => {
    const checker = createChecker();
    const broken = checker.check("return 1;", "declare const tools: Missing;");
    const fine = checker.check("return 1;", DECLARATIONS);
    await expect(broken).rejects.toBeInstanceOf(SwitchyardError);
    await expect(broken).rejects.toMatchObject({ code: "CONFIG_INVALID" });
    await expect(fine).resolves.toEqual([]);
  });

  it("restarts a checker process a program kills, checks the programs queued behind it, and rejects the killer after one retry", async () => {
    const checker = createChecker({ memoryLimitMb: 128, timeoutMs: 120_000 });
    expect(await checker.check("return 1;", DECLARATIONS)).toEqual([]);
    const settled: string[] = [];
    const killer = checker.check(WORKER_KILLER, DECLARATIONS).finally(() => settled.push("killer"));
    const wrong = checker.check("const a: number = 'x';", DECLARATIONS).finally(() => settled.push("queued"));
    const right = checker.check("return 2;", DECLARATIONS).finally(() => settled.push("queued"));
    await expect(killer).rejects.toThrow(/stopped 2 times while checking this program \(.*memory/);
    expect(await wrong).toEqual([expect.objectContaining({ code: 2322 })]);
    expect(await right).toEqual([]);
    // The replacement process answered the queued checks before the killer's second attempt.
    expect(settled).toEqual(["queued", "queued", "killer"]);
    expect(await checker.check("return 3;", DECLARATIONS)).toEqual([]);
    expect(checker.stats).toMatchObject({ retries: 1, workerStarts: 3 });
  }, 240_000);

  it("retries a check once when its process dies under it, and answers it from the new process", async () => {
    const checker = createChecker();
    const before = childPids();
    const checking = checker.check("const a: string = 1;", DECLARATIONS);
    // The process was forked and sent the check synchronously; it is still booting. Killing it
    // from the test is a one-off crash, not the program's.
    const started = childPids().filter((pid) => !before.includes(pid));
    expect(started).toHaveLength(1);
    process.kill(started[0] ?? 0, "SIGKILL");
    expect(await checking).toEqual([expect.objectContaining({ code: 2322 })]);
    expect(checker.stats).toMatchObject({ checked: 2, retries: 1, workerStarts: 2 });
  });

  it("answers a repeated check from the cache, never sending it to the checker process again", async () => {
    const checker = createChecker();
    const first = await checker.check(PROGRAMS[0] ?? "", DECLARATIONS, { lint: true });
    const again = await checker.check(PROGRAMS[0] ?? "", DECLARATIONS, { lint: true });
    expect(again).toEqual(first);
    expect(first).toHaveLength(1);
    expect(checker.stats).toMatchObject({ checked: 1, cacheHits: 1 });
  });

  it("checks again when the declarations, the contract, the form or lint differ", async () => {
    const checker = createChecker();
    const source = "async () => 1";
    await checker.check(source, DECLARATIONS);
    await checker.check(source, `${DECLARATIONS}\ninterface Extra { a: string }`);
    await checker.check(source, DECLARATIONS, { contract: { declarations: "declare const input: number;" } });
    await checker.check(source, DECLARATIONS, { form: "expression" });
    await checker.check(source, DECLARATIONS, { lint: true });
    expect(checker.stats).toMatchObject({ checked: 5, cacheHits: 0 });
  });

  it("joins identical checks already on their way into one", async () => {
    const checker = createChecker();
    const results = await Promise.all(
      Array.from({ length: 6 }, () => checker.check("const a: string = 1;", DECLARATIONS)),
    );
    for (const diagnostics of results) expect(diagnostics).toEqual([expect.objectContaining({ code: 2322 })]);
    expect(checker.stats).toMatchObject({ checked: 1, cacheHits: 5 });
  });

  it("remembers no failure: declarations that do not compile are checked, and refused, each time", async () => {
    const checker = createChecker();
    await expect(checker.check("return 1;", "declare const tools: Missing;")).rejects.toMatchObject({
      code: "CONFIG_INVALID",
    });
    await expect(checker.check("return 1;", "declare const tools: Missing;")).rejects.toMatchObject({
      code: "CONFIG_INVALID",
    });
    expect(checker.stats.checked).toBe(2);
  });

  it("holds at most maxCachedChecks results, dropping the least recently used", async () => {
    const checker = createChecker({ maxCachedChecks: 2 });
    for (const source of ["return 1;", "return 2;", "return 3;", "return 1;"])
      await checker.check(source, DECLARATIONS);
    expect(checker.stats).toMatchObject({ checked: 4, cacheHits: 0 });
    await checker.check("return 3;", DECLARATIONS);
    expect(checker.stats).toMatchObject({ checked: 4, cacheHits: 1 });
  });

  it("rejects a check that outlives timeoutMs", async () => {
    const checker = createChecker({ timeoutMs: 1 });
    await expect(checker.check("return 1;", DECLARATIONS)).rejects.toThrow(/longer than 1 ms/);
  });

  it("rejects pending and later checks once closed, and closes twice without error", async () => {
    const checker = createChecker();
    const pending = expect(checker.check("return 1;", DECLARATIONS)).rejects.toThrow(/closed/);
    await checker.close();
    await pending;
    await expect(checker.check("return 1;", DECLARATIONS)).rejects.toThrow(/closed/);
    await expect(checker.close()).resolves.toBeUndefined();
  });

  it("makes a check that arrives during the warm-up wait for it in the same process", async () => {
    const checker = createChecker();
    const warming = checker.warmUp(DECLARATIONS, [
      "return 1;",
      "const a: number[] = [1];\nreturn a.map((x) => x * 2);",
    ]);
    const diagnostics = await checker.check("const a: string = 1;", DECLARATIONS);
    expect(diagnostics).toEqual([expect.objectContaining({ code: 2322 })]);
    await warming;
    // Warm-ups are not checks: only the real one counts, and one process served both; the
    // second warm-up, not yet sent, gave way, so the check waited for the first one only.
    expect(checker.stats).toMatchObject({ checked: 1, workerStarts: 1, retries: 0, warmUpsGivenWay: 1 });
  });

  it("keeps a warm-up that fails silent, drops the programs behind it, and checks the next program in a new process", async () => {
    const timedOut = createChecker({ timeoutMs: 1 });
    await expect(timedOut.warmUp(DECLARATIONS, ["return 1;", "return 2;", "return 3;"])).resolves.toBeUndefined();
    // The programs behind the one that cost the process were dropped, not each given a process to stop.
    expect(timedOut.stats).toMatchObject({ checked: 0, workerStarts: 1, warmUpsChecked: 0 });
    // A warm-up whose process dies under it is not retried, and the next check starts a new one.
    const checker = createChecker();
    const before = childPids();
    const warming = checker.warmUp(DECLARATIONS, ["return 1;", "return 2;"]);
    const started = childPids().filter((pid) => !before.includes(pid));
    expect(started).toHaveLength(1);
    process.kill(started[0] ?? 0, "SIGKILL");
    await expect(warming).resolves.toBeUndefined();
    expect(await checker.check("const a: string = 1;", DECLARATIONS)).toEqual([
      expect.objectContaining({ code: 2322 }),
    ]);
    expect(checker.stats).toMatchObject({ checked: 1, retries: 0, workerStarts: 2, warmUpsChecked: 0 });
  });

  it("closes without ever starting a checker process", async () => {
    await expect(new TypeChecker().close()).resolves.toBeUndefined();
  });
});
