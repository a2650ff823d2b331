import { afterAll, describe, expect, it } from "vitest";
import { checkProgram, executeProgram, type ProgramContext, type RunSettings } from "../src/execute-program.js";
import { PermissionGate, type PermissionOptions } from "../src/permissions/permission-gate.js";
import { compileRunContract } from "../src/program/run-contract.js";
import { TypeChecker } from "../src/program/type-checker.js";
import { ToolRegistry } from "../src/registry/tool-registry.js";
import { InProcessExecutor } from "../src/sandbox/in-process-executor.js";
import { DEFAULT_RUN_LIMITS } from "../src/sandbox/run-program.js";
import { RunQueue } from "../src/sandbox/run-queue.js";
import { generateDeclarations, RUNTIME_DECLARATIONS } from "../src/schema/generate-declarations.js";
import { declarationToolOf } from "../src/search/discovery.js";
import { ToolScheduler } from "../src/scheduler/tool-scheduler.js";
import { SwitchyardTelemetry } from "../src/telemetry/switchyard-telemetry.js";
import { TraceBus, type TraceEvent } from "../src/trace/trace-events.js";
import { echoTool } from "./helpers/pipeline-fixtures.js";

const checker = new TypeChecker();
const executor = new InProcessExecutor();
afterAll(async () => {
  await checker.close();
  await executor.close();
});

/** A run's context from plain parts, no session: what execute-program.ts says a run needs. */
function partsContext(permissions: PermissionOptions = {}) {
  const registry = new ToolRegistry([echoTool("data.echo")]);
  const trace = new TraceBus();
  const events: TraceEvent[] = [];
  trace.subscribe((event) => events.push(event));
  const declarations = `${RUNTIME_DECLARATIONS}\n${generateDeclarations(registry.snapshot().tools.map((tool) => declarationToolOf(tool)))}`;
  const gate = new PermissionGate(permissions);
  const scheduler = new ToolScheduler();
  const context: ProgramContext = {
    trace,
    telemetry: new SwitchyardTelemetry(trace, false),
    runQueue: new RunQueue(),
    permissions: gate,
    executor,
    redactor: undefined,
    observedTypes: undefined,
    checker,
    checkedDeclarations: () => declarations,
    catalog: () => registry.snapshot(),
    closing: () => new AbortController().signal,
    sessionKey: "parts",
    pipeline: (catalog) => ({ catalog, permissions: gate, scheduler, trace }),
    discovery: () => ({
      search: () => Promise.resolve([]),
      describe: () => Promise.resolve(""),
    }),
  };
  const settings: RunSettings = {
    limits: DEFAULT_RUN_LIMITS,
    contract: compileRunContract({ hasInput: false }, declarations),
    mode: "error",
  };
  return { context, settings, snapshot: registry.snapshot(), events };
}

describe("executeProgram", () => {
  it("runs a program against a context built from parts, recording it from program-start to program-end", async () => {
    const { context, settings, snapshot, events } = partsContext();
    const result = await executeProgram(
      "const { n } = await tools.data.echo({ n: 2 }); return n * 21;",
      { programId: "p1", snapshot, settings, options: {} },
      context,
    );
    expect(result.ok).toBe(true);
    expect(result.output).toBe(42);
    const types = events.map((event) => event.type);
    expect(types[0]).toBe("program-start");
    expect(types.at(-1)).toBe("program-end");
    expect(types).toContain("tool-call-end");
  });

  it("checks before it approves: a program that does not type-check never reaches approveProgram", async () => {
    const shown: string[] = [];
    const { context, settings, snapshot } = partsContext({
      approveProgram: (source) => {
        shown.push(source);
        return true;
      },
    });
    const result = await executeProgram(
      "return await tools.data.echoo({});",
      { programId: "p2", snapshot, settings, options: {} },
      context,
    );
    expect(result.error?.code).toBe("TYPE_ERROR");
    expect(shown).toEqual([]);
  });

  it("announces the run's isolate to its executor while the program is still being checked", async () => {
    const { context, settings, snapshot } = partsContext();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const held = new (class extends TypeChecker {
      override async check(...args: Parameters<TypeChecker["check"]>) {
        await gate;
        return super.check(...args);
      }
    })();
    const announced: number[] = [];
    const executed: string[] = [];
    const running = executeProgram(
      "return 6 * 7;",
      { programId: "p-announce", snapshot, settings, options: {} },
      {
        ...context,
        checker: held,
        executor: {
          execute: (job, bindings, onStarted) => {
            executed.push(job.script);
            return executor.execute(job, bindings, onStarted);
          },
          prepareNext: (memoryLimitMb) => announced.push(memoryLimitMb),
          close: () => Promise.resolve(),
        },
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    // The check has not answered: the isolate is asked for, nothing is run.
    expect(announced).toEqual([settings.limits.memoryLimitMb]);
    expect(executed).toEqual([]);
    release();
    const result = await running;
    await held.close();
    expect(result.output).toBe(42);
    expect(executed).toHaveLength(1);
    expect(announced).toHaveLength(1);
  });

  it("approves before it runs: a program denied at approval makes no call", async () => {
    const { context, settings, snapshot, events } = partsContext({ approveProgram: () => false });
    const result = await executeProgram(
      "await tools.data.echo({}); return 1;",
      { programId: "p3", snapshot, settings, options: {} },
      context,
    );
    expect(result.error?.code).toBe("PERMISSION_DENIED");
    expect(events.filter((event) => event.type === "tool-call-start")).toEqual([]);
  });
});

describe("checkProgram", () => {
  it("answers what a run would end with before running, and emits nothing", async () => {
    const { context, settings, events } = partsContext();
    const checked = await checkProgram("return await tools.data.echoo({});", settings, {}, context);
    expect(checked.ok).toBe(false);
    expect(checked.error?.code).toBe("TYPE_ERROR");
    expect(events).toEqual([]);
  });
});
