import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { encodeCallAnswers, encodeGuestConfig, MAX_ERROR_TEXT_CHARS } from "../../runtime/wire.js";
import { compileProgram } from "../../src/program/compile-program.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { isAlive } from "../helpers/mcp-servers.js";
import { sandboxWorkerPids } from "../helpers/worker-processes.js";
import { WorkerPool, type WorkerExit } from "../../src/sandbox/worker-pool.js";
import { Switchyard, type SwitchyardOptions } from "../../src/switchyard.js";
import { createDeferred } from "../helpers/pipeline-fixtures.js";

const exits: WorkerExit[] = [];
const pools: WorkerPool[] = [];
const yards: Switchyard[] = [];
afterEach(async () => {
  await Promise.all(yards.splice(0).map((yard) => yard.close()));
});
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.close()));
});

function createPool(size: number): WorkerPool {
  const pool = new WorkerPool({ size, onWorkerExit: (exit) => exits.push(exit) });
  pools.push(pool);
  return pool;
}

/** A session on `workers`, with an echo tool and a tool that holds its calls until the test opens the gate. */
function createYard(workers: number | WorkerPool, options: SwitchyardOptions = {}) {
  const state = { inFlight: 0, aborted: 0, calls: [] as string[] };
  const gate = { current: createDeferred() };
  const echo = defineTool({
    name: "util.echo",
    description: "Returns its input.",
    effect: "read",
    inputSchema: { type: "object" },
    execute: (input: unknown) => ({ echoed: input }),
  });
  const held = defineTool({
    name: "util.held",
    description: "Waits until the test opens the gate.",
    effect: "read",
    inputSchema: { type: "object" },
    execute: async (_input, { signal, callId }) => {
      state.calls.push(callId);
      state.inFlight++;
      signal.addEventListener("abort", () => state.aborted++, { once: true });
      await Promise.race([gate.current.promise, new Promise((resolve) => signal.addEventListener("abort", resolve))]);
      state.inFlight--;
      return "done";
    },
  });
  const yard = new Switchyard({ tools: [echo, held], typeCheck: "off", workers, ...options });
  yards.push(yard);
  return { yard, state, open: () => gate.current.resolve() };
}

describe("workers: a run in a worker process behaves as in process", () => {
  const pool = createPool(1);

  it("returns output, logs written after an await and one record per call", async () => {
    const { yard } = createYard(pool);
    const result = await yard.run(
      `console.log("before"); const a = await tools.util.echo({ n: 1 }); console.log("after", a.echoed.n);
       const all = await Promise.all(Array.from({ length: 50 }, (_, i) => tools.util.echo({ i })));
       return { first: a, count: all.length, last: all[49] };`,
    );
    expect(result.error).toBeUndefined();
    expect(result.output).toEqual({ first: { echoed: { n: 1 } }, count: 50, last: { echoed: { i: 49 } } });
    expect(result.logs).toEqual(["before", "after 1"]);
    expect(result.calls).toHaveLength(51);
    expect(new Set(result.calls.map((call) => call.id)).size).toBe(51);
    expect(result.stats.cpuMs).toBeGreaterThan(0);
  });

  it("has all 50 calls of a Promise.all in flight at once", async () => {
    const { yard, state, open } = createYard(pool);
    const running = yard.run(
      "return (await Promise.all(Array.from({ length: 50 }, () => tools.util.held({})))).length;",
    );
    await expect.poll(() => state.inFlight, { timeout: 20_000 }).toBe(50);
    open();
    expect((await running).output).toBe(50);
  });

  it("locates runtime errors and a rejection before the first await in the program's source", async () => {
    const { yard } = createYard(pool);
    const thrown = await yard.run("const x = 1;\nthrow new Error('bad ' + x);");
    expect(thrown.error).toMatchObject({ code: "RUNTIME_ERROR", line: 2 });
    const rejected = await yard.run("const x = 1;\nPromise.reject(new Error('oops'));\nreturn x;");
    expect(rejected.error).toMatchObject({ code: "RUNTIME_ERROR", line: 2 });
    const deep = await yard.run(`return ${"[".repeat(50_000)}${"]".repeat(50_000)};`, {
      limits: { maxSourceBytes: 200_000 },
    });
    expect(deep.error?.code).toBe("SYNTAX_ERROR");
  });

  it("ends an endless loop with CPU_LIMIT and a run that waits forever with TIMEOUT, its call cancelled", async () => {
    const { yard } = createYard(pool);
    const spin = await yard.run("await tools.util.echo({}); while (true) {}", { limits: { cpuTimeMs: 200 } });
    expect(spin.error?.code).toBe("CPU_LIMIT");
    const waits = await yard.run("await tools.util.held({});", { limits: { wallTimeMs: 500 } });
    expect(waits.error?.code).toBe("TIMEOUT");
    expect(waits.calls).toEqual([expect.objectContaining({ status: expect.stringMatching(/cancelled|timeout/) })]);
  });

  it("ends a memory bomb with MEMORY_LIMIT, and the worker runs the next program", async () => {
    const { yard } = createYard(pool);
    const pid = pool.pids()[0];
    const bomb = await yard.run("const a: number[][] = []; while (true) a.push(new Array(10_000).fill(1));", {
      limits: { memoryLimitMb: 16 },
    });
    expect(bomb.error?.code).toBe("MEMORY_LIMIT");
    expect((await yard.run("return 'fine';")).output).toBe("fine");
    expect(pool.pids()).toEqual([pid]);
  });

  it("cancels a run through its AbortSignal, every pending call getting one record", async () => {
    const { yard, state } = createYard(pool);
    const controller = new AbortController();
    const running = yard.run("await Promise.all([tools.util.held({}), tools.util.held({})]);", {
      signal: controller.signal,
    });
    await expect.poll(() => state.inFlight, { timeout: 20_000 }).toBe(2);
    controller.abort();
    const result = await running;
    expect(result.error?.code).toBe("CANCELLED");
    expect(result.calls.map((call) => call.status)).toEqual(["cancelled", "cancelled"]);
    expect(state.aborted).toBe(2);
  });

  it("ends the run with TOOL_CALL_LIMIT when the program makes too many calls", async () => {
    const { yard } = createYard(pool);
    const result = await yard.run("for (let i = 0; i < 100; i++) await tools.util.echo({ i });", {
      limits: { maxToolCalls: 10 },
    });
    expect(result.error?.code).toBe("TOOL_CALL_LIMIT");
    expect(result.calls.length).toBeGreaterThanOrEqual(10);
  });
});

describe("workers: the batched crossing, the log buffer and the run's contracts hold in a worker", () => {
  const pool = createPool(1);

  it.each([
    ["CPU_LIMIT", "console.log('last words'); while (true) {}", { cpuTimeMs: 200 }],
    ["TIMEOUT", "console.log('last words'); await tools.util.held({});", { wallTimeMs: 500 }],
    [
      "MEMORY_LIMIT",
      "console.log('last words'); const a: number[][] = []; while (true) a.push(new Array(10_000).fill(1));",
      { memoryLimitMb: 16 },
    ],
  ])("keeps the lines logged before a run ended with %s", async (code, ending, limits) => {
    const { yard } = createYard(pool);
    const result = await yard.run(`await tools.util.echo({ x: 1 });\nconsole.log('first');\n${ending}`, { limits });
    expect(result.error?.code).toBe(code);
    expect(result.logs).toEqual(["first", "last words"]);
  });

  it("answers a fan-out of 2,000 calls, its full batches sent ahead over IPC, each call with its own answer and record in order", async () => {
    const { yard } = createYard(pool);
    const result = await yard.run(
      "const all = await Promise.all(Array.from({ length: 2000 }, (_, i) => tools.util.echo({ i }))); return all.every((a, i) => a.echoed.i === i);",
      { limits: { maxToolCalls: 2_000 } },
    );
    expect(result.error).toBeUndefined();
    expect(result.output).toBe(true);
    expect(result.calls.map((call) => call.id)).toEqual(
      Array.from({ length: 2000 }, (_, i) => `${result.programId}.${i + 1}`),
    );
  });

  it("keeps the log of a cancelled run, its pending calls each with one record", async () => {
    const { yard, state } = createYard(pool);
    const controller = new AbortController();
    const running = yard.run(
      "await tools.util.echo({});\nconsole.log('waiting');\nawait Promise.all([tools.util.held({}), tools.util.held({})]);",
      { signal: controller.signal },
    );
    await expect.poll(() => state.inFlight, { timeout: 20_000 }).toBe(2);
    controller.abort();
    const result = await running;
    expect(result.error?.code).toBe("CANCELLED");
    expect(result.logs).toEqual(["waiting"]);
    expect(result.calls.map((call) => call.status)).toEqual(["ok", "cancelled", "cancelled"]);
  });

  it("does not let a call the program never awaits hold its end", async () => {
    const { yard, state } = createYard(pool);
    const result = await yard.run("void tools.util.held({}); return 'early';", { limits: { wallTimeMs: 20_000 } });
    expect(result).toMatchObject({ ok: true, output: "early" });
    expect(result.calls).toEqual([expect.objectContaining({ tool: "util.held", status: "cancelled" })]);
    expect(state.aborted).toBe(1);
  });

  it("gives calls refused inside the sandbox a record and an id, and never runs the tool", async () => {
    const { yard, state } = createYard(pool);
    const result = await yard.run(
      `const seen: unknown[] = [];
      for (const input of [{ n: 10n }, { s: "a".repeat(2_000) }]) {
        try { await tools.util.held(input as any); } catch (e) { seen.push([(e as any).code, (e as any).callId]); }
      }
      return seen;`,
      { limits: { maxArgumentBytes: 1_000 } },
    );
    const ids = result.calls.map((call) => call.id);
    expect(result.output).toEqual([
      ["INPUT_INVALID", ids[0]],
      ["ARGUMENT_TOO_LARGE", ids[1]],
    ]);
    expect(result.calls.map((call) => [call.tool, call.status])).toEqual([
      ["util.held", "invalid"],
      ["util.held", "invalid"],
    ]);
    expect(state.calls).toEqual([]);
  });

  it("cuts a 20 MB error, thrown or rejected before the first await, to the cap, keeping its line", async () => {
    const { yard } = createYard(pool);
    for (const source of [
      'const a = 1;\nthrow new Error("A".repeat(2e7) + a);',
      'const a = 1;\nPromise.reject(new Error("A".repeat(2e7) + a));\nreturn a;',
    ]) {
      const result = await yard.run(source);
      expect(result.error).toMatchObject({ code: "RUNTIME_ERROR", line: 2 });
      expect(result.error?.message.length).toBeLessThanOrEqual(MAX_ERROR_TEXT_CHARS);
      expect(result.error?.message).toContain("characters in all]");
    }
  });

  it("hands the program its input and holds its output to the outputSchema", async () => {
    const { yard } = createYard(pool);
    const inputSchema = { type: "object", properties: { n: { type: "integer" } }, required: ["n"] };
    const outputSchema = { type: "object", properties: { doubled: { type: "integer" } }, required: ["doubled"] };
    const doubled = await yard.run("return { doubled: (await tools.util.echo({ n: input.n })).echoed.n * 2 };", {
      input: { n: 21 },
      inputSchema,
      outputSchema,
    });
    expect(doubled).toMatchObject({ ok: true, output: { doubled: 42 } });
    const wrong = await yard.run("return { doubled: String(input.n) };", { input: { n: 1 }, outputSchema });
    expect(wrong).toMatchObject({ ok: false, output: null, error: { code: "OUTPUT_INVALID" } });
    const refused = await yard.run("return input;", { input: { n: "x" }, inputSchema });
    expect(refused).toMatchObject({ error: { code: "INPUT_INVALID" }, calls: [] });
  });

  it("type-checks the program against its input and output types before it reaches a worker", async () => {
    const { yard } = createYard(pool, { typeCheck: "error" });
    const outputSchema = { type: "object", properties: { n: { type: "integer" } }, required: ["n"] };
    const inputSchema = { type: "object", properties: { n: { type: "integer" } }, required: ["n"] };
    const wrong = await yard.run("return { n: input.n + '!' };", { input: { n: 1 }, inputSchema, outputSchema });
    expect(wrong.error).toMatchObject({ code: "TYPE_ERROR", line: 1 });
    const right = await yard.run("return { n: input.n + 1 };", { input: { n: 1 }, inputSchema, outputSchema });
    expect(right).toMatchObject({ ok: true, output: { n: 2 } });
  });
});

describe("workers: timers, $budget and observed types cross as tool requests do", () => {
  const pool = createPool(1);

  it("sleeps and orders setTimeout callbacks in the worker's isolate, one wake-up at a time from the host", async () => {
    const { yard } = createYard(pool);
    const result = await yard.run(`
      const order: number[] = [];
      setTimeout(() => order.push(2), 30);
      setTimeout(() => order.push(1), 10);
      const cleared = setTimeout(() => order.push(99), 20);
      clearTimeout(cleared);
      const started = Date.now();
      await sleep(60);
      return { order, slept: Date.now() - started };`);
    expect(result).toMatchObject({ ok: true, output: { order: [1, 2] } });
    expect((result.output as { slept: number }).slept).toBeGreaterThanOrEqual(55);
    expect(result.calls).toEqual([]);
  });

  it("answers tools.$budget() from the host, with the time counted from the isolate's start", async () => {
    const { yard } = createYard(pool, { limits: { wallTimeMs: 5_000, maxToolCalls: 10 } });
    const result = await yard.run(`
      await tools.util.echo({});
      return await tools.$budget();`);
    expect(result.ok).toBe(true);
    const budget = result.output as { timeLeftMs: number; callsLeft: number; callsMade: number };
    expect(budget).toMatchObject({ callsLeft: 9, callsMade: 1 });
    expect(budget.timeLeftMs).toBeGreaterThan(4_000);
    expect(budget.timeLeftMs).toBeLessThanOrEqual(5_000);
  });

  it("ends a program sleeping past its wall time with TIMEOUT, the host's wake-up cleared", async () => {
    const { yard } = createYard(pool, { limits: { wallTimeMs: 300 } });
    const result = await yard.run("await sleep(60_000); return 1;");
    expect(result).toMatchObject({ ok: false, error: { code: "TIMEOUT" } });
  });

  it("learns an observed output type from a result made by a run in a worker", async () => {
    const { yard } = createYard(pool);
    expect(yard.declarations()).not.toContain("UtilEchoObserved");
    const first = await yard.run("return await tools.util.echo({ n: 1 });");
    expect(first.ok).toBe(true);
    expect(yard.declarations()).toContain("UtilEchoObserved");
  });
});

describe("workers: a worker that dies fails only its runs", () => {
  for (const signal of ["SIGKILL", "SIGABRT"] as const) {
    it(`ends the runs of a worker killed by ${signal} with SANDBOX_CRASHED, each pending call with one record, and replaces it`, async () => {
      const pool = createPool(2);
      const { yard, state, open } = createYard(pool);
      // The first run starts worker 0; the second goes to the least busy slot, a new worker 1.
      const victim = yard.run(
        "console.log('in the buffer'); await tools.util.held({}); await tools.util.held({}); return 'unreachable';",
      );
      await expect.poll(() => state.inFlight, { timeout: 20_000 }).toBe(1);
      const survivor = yard.run("return (await tools.util.held({})) + ' too';");
      await expect.poll(() => state.inFlight, { timeout: 20_000 }).toBe(2);
      const [first, second] = pool.pids();
      process.kill(first!, signal);
      const crashed = await victim;
      expect(crashed.error?.code).toBe("SANDBOX_CRASHED");
      expect(crashed.error?.message).toContain(`killed by ${signal}`);
      // Its console lines were still in the dead worker's shared buffer.
      expect(crashed.logs).toEqual([]);
      expect(crashed.calls).toEqual([expect.objectContaining({ id: state.calls[0], status: "cancelled" })]);
      expect(state.aborted).toBe(1);
      open();
      expect((await survivor).output).toBe("done too");
      await expect.poll(() => pool.pids().length, { timeout: 20_000 }).toBe(2);
      expect(pool.pids()).not.toContain(first);
      expect(pool.pids()).toContain(second);
      expect(exits).toContainEqual(expect.objectContaining({ pid: first, signal, expected: false, runs: 1 }));
      expect((await yard.run("return 'after';")).output).toBe("after");
    });
  }

  it("gives a run whose worker dies before the run's isolate started to another worker", async () => {
    const pool = createPool(1);
    const compiled = await compileProgram("return 5;", { maxSourceBytes: 1_000 });
    if (!compiled.ok) throw new Error("did not compile");
    const config = encodeGuestConfig({
      maxArgumentBytes: 1_000,
      maxOutputBytes: 1_000,
      maxLogBytes: 1_000,
      maxLogLines: 10,
    });
    let started = 0;
    const execution = pool.execute(
      { script: compiled.program.script, limits: { wallTimeMs: 20_000, cpuTimeMs: 5_000, memoryLimitMb: 16 } },
      {
        submit: () => encodeCallAnswers([]),
        wait: () => new Promise<string>(() => {}),
        log: () => {},
        config: () => config,
      },
      () => started++,
    );
    // In the same turn as the fork: the worker cannot have started anything yet.
    const [doomed] = pool.pids();
    process.kill(doomed!, "SIGKILL");
    expect(await execution.outcome).toMatchObject({ ending: { kind: "returned", resultText: "o5" } });
    expect(started).toBe(1);
    expect(pool.pids()).not.toContain(doomed);
    expect(exits).toContainEqual(expect.objectContaining({ pid: doomed, signal: "SIGKILL", runs: 0 }));
  });

  it("kills a worker that stops answering once a run's wall time and a grace have passed", async () => {
    const pool = createPool(1);
    const { yard, state } = createYard(pool);
    const running = yard.run("await tools.util.held({});", { limits: { wallTimeMs: 300 } });
    await expect.poll(() => state.inFlight, { timeout: 20_000 }).toBe(1);
    const [pid] = pool.pids();
    process.kill(pid!, "SIGSTOP");
    const result = await running;
    expect(result.error).toMatchObject({ code: "SANDBOX_CRASHED" });
    expect(result.calls).toEqual([expect.objectContaining({ status: expect.stringMatching(/cancelled|timeout/) })]);
    expect(isAlive(pid!)).toBe(false);
  });
});

describe("workers: shutdown", () => {
  it("ends the session's own workers on close, its runs ending CANCELLED with their records", async () => {
    const before = new Set(await sandboxWorkerPids());
    const { yard, state } = createYard(2);
    const running = yard.run("await tools.util.held({});");
    await expect.poll(() => state.inFlight, { timeout: 20_000 }).toBe(1);
    // The session's own two workers: one runs the program, the other was warmed up beside it.
    await expect.poll(async () => (await sandboxWorkerPids()).filter((pid) => !before.has(pid)).length).toBe(2);
    const pids = (await sandboxWorkerPids()).filter((pid) => !before.has(pid));
    await yard.close();
    const result = await running;
    expect(result.error).toMatchObject({ code: "CANCELLED", message: expect.stringMatching(/session was closed/) });
    expect(result.calls).toEqual([expect.objectContaining({ status: "cancelled" })]);
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
    // Runs still work afterwards, on new workers.
    expect((await yard.run("return 2;")).output).toBe(2);
  });

  it("leaves a shared pool running when one of its sessions closes", async () => {
    const pool = createPool(1);
    const first = createYard(pool);
    const second = createYard(pool);
    expect((await first.yard.run("return 1;")).output).toBe(1);
    const pids = pool.pids();
    await first.yard.close();
    expect(pool.pids()).toEqual(pids);
    expect((await second.yard.run("return 2;")).output).toBe(2);
    await pool.close();
    expect(pool.pids()).toEqual([]);
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
  });

  it("does not keep the host process alive while its workers are idle", async () => {
    const script = join(tmpdir(), `switchyard-idle-${process.pid}.mts`);
    const source = new URL("../../src/switchyard.ts", import.meta.url).href;
    await writeFile(
      script,
      `import { Switchyard } from ${JSON.stringify(source)};
       const yard = new Switchyard({ workers: 2, typeCheck: "off" });
       const result = await yard.run("return 6 * 7;");
       console.log(JSON.stringify(result.output));`,
    );
    const { stdout } = await promisify(execFile)(process.execPath, ["--no-node-snapshot", "--import", "tsx", script], {
      timeout: 25_000,
      cwd: new URL("../..", import.meta.url).pathname,
    });
    expect(stdout.trim()).toBe("42");
  });

  it("refuses a workers option that is not a count or a pool with OPTION_INVALID", () => {
    for (const workers of [-1, 1.5, Number.NaN]) {
      expect(() => new Switchyard({ workers })).toThrow(expect.objectContaining({ code: "OPTION_INVALID" }));
    }
    expect(() => new WorkerPool({ size: 0 })).toThrow(expect.objectContaining({ code: "OPTION_INVALID" }));
  });
});
