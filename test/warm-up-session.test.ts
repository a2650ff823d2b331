import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { WARM_UP_PROGRAMS } from "../src/program/shared-type-checker.js";
import { TypeChecker } from "../src/program/type-checker.js";
import { defineTool } from "../src/registry/define-tool.js";
import { loadGuestRuntimeSource } from "../src/sandbox/guest-runtime-source.js";
import { runtimeCodeCacheBytes } from "../src/sandbox/runtime-code-cache.js";
import { schemaCompileCount } from "../src/schema/schema-validator.js";
import { Switchyard, type SwitchyardOptions } from "../src/switchyard.js";
import { ToolRegistry } from "../src/registry/tool-registry.js";
import { InProcessExecutor } from "../src/sandbox/in-process-executor.js";
import { warmUpSession } from "../src/warm-up-session.js";
import { waitFor } from "./helpers/mcp-servers.js";

const HOST = fileURLToPath(new URL("./helpers/session-warm-up-host.ts", import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const PROGRAM = `const item = await tools.items.get({ id: "a" });\nreturn item.name.length;`;

function createYard(options: SwitchyardOptions = {}) {
  // A schema shape of its own per session (the validators are cached by schema text, process-wide).
  const marker = `m${Math.random().toString(36).slice(2)}`;
  const tool = defineTool({
    name: "items.get",
    description: "Gets an item.",
    effect: "read",
    inputSchema: {
      type: "object",
      properties: { id: { type: "string" }, [marker]: { type: "number" } },
      required: ["id"],
    },
    outputSchema: {
      type: "object",
      properties: { name: { type: "string" }, [marker]: { type: "number" } },
      required: ["name"],
    },
    execute: () => ({ name: "item" }),
  });
  return new Switchyard({ ...options, tools: [tool, ...(options.tools ?? [])] });
}

/** Runs `body` with a session checking on a checker of its own, and closes both, whatever `body` does. */
async function withYard(
  options: SwitchyardOptions,
  body: (yard: Switchyard, checker: TypeChecker) => Promise<void>,
): Promise<void> {
  const checker = new TypeChecker();
  const yard = createYard({ ...options, typeChecker: checker });
  try {
    await body(yard, checker);
  } finally {
    await yard.close();
    await checker.close();
  }
}

/** Whether `pid` names a process that still runs (a zombie waiting to be reaped does not). */
function isRunning(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** Runs the host script to its own end; its exit code, how long it took, and the child processes it had. */
async function runHost(mode: "close-now" | "close-during") {
  const started = Date.now();
  const host = spawn(process.execPath, ["--no-node-snapshot", "--import", TSX, HOST, mode], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  host.stdout?.setEncoding("utf8");
  host.stdout?.on("data", (chunk: string) => {
    output += chunk;
  });
  // A host that never ends would be held open by the warm-up: the test's timeout says so.
  const code = await new Promise<number | null>((resolve) => host.once("exit", resolve));
  const { children } = JSON.parse(output.trim().split("\n").at(-1) ?? "{}") as { children: number[] };
  return { code, ms: Date.now() - started, children };
}

/** The warm-up of a session over `catalog` that does not check programs (48 MB isolates). */
function warmUpWithoutChecks(catalog: ToolRegistry, executor: InProcessExecutor | undefined, busy?: () => boolean) {
  return warmUpSession(
    { typeCheck: "off" },
    {
      checker: () => {
        throw new Error("a session that does not check has no checker to warm");
      },
      catalog: () => catalog.snapshot(),
      declarations: () => "",
      executor,
      memoryLimitMb: 48,
      busy,
    },
  );
}

describe("a session's warm-up", () => {
  it("prepares the checker, the runtime's code cache and the tools' validators before the first run", async () => {
    const compiles = schemaCompileCount();
    await withYard({}, async (yard, checker) => {
      const source = await loadGuestRuntimeSource();
      await waitFor(() => schemaCompileCount() >= compiles + 2, 30_000, "the validators to be compiled");
      await waitFor(() => runtimeCodeCacheBytes(source) > 0, 30_000, "the runtime's code cache");
      expect(checker.stats).toMatchObject({ workerStarts: 1, checked: 0 });
      const compiledBefore = schemaCompileCount();
      expect(await yard.run(PROGRAM)).toMatchObject({ ok: true, output: 4 });
      // The run's calls found their validators compiled, and its check the process already warm.
      expect(schemaCompileCount()).toBe(compiledBefore);
      expect(checker.stats).toMatchObject({ workerStarts: 1, checked: 1 });
    });
  }, 60_000);

  it("leaves a tool's large schema to its first call, so no warm-up step compiles for long", async () => {
    const properties = Object.fromEntries(
      Array.from({ length: 2_000 }, (_, index) => [
        `field_${index}_${Math.random().toString(36).slice(2)}`,
        { type: "string" },
      ]),
    );
    const large = defineTool({
      name: "records.put",
      description: "Stores a record.",
      inputSchema: { type: "object", properties },
      execute: () => ({ ok: true }),
    });
    const compiles = schemaCompileCount();
    await withYard({ tools: [large], discovery: { defer: false } }, async () => {
      // The small tool's two validators are compiled by the warm-up, the large one's is not.
      await waitFor(() => schemaCompileCount() >= compiles + 2, 30_000, "the small tool's validators");
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(schemaCompileCount()).toBe(compiles + 2);
    });
  }, 60_000);

  it("gives a run issued right at the session's start precedence over the warm-up programs not yet checked", async () => {
    await withYard({}, async (yard, checker) => {
      expect(await yard.run(PROGRAM)).toMatchObject({ ok: true, output: 4 });
      // The first warm-up program loads the compiler, which the run needs too; the ones queued
      // behind it gave way, so the run's check waited for one program at most.
      expect(checker.stats.warmUpsGivenWay).toBeGreaterThanOrEqual(WARM_UP_PROGRAMS.length - 2);
      expect(checker.stats).toMatchObject({ workerStarts: 1, checked: 1 });
      // They are checked once the checker is idle (a model's turn), so the next new program finds
      // the kept checker's code optimised; a check arriving meanwhile sets them aside again.
      await waitFor(() => checker.stats.warmUpsChecked === WARM_UP_PROGRAMS.length, 30_000, "the set-aside warm-ups");
      expect(await yard.run(`${PROGRAM}\n// a new program`)).toMatchObject({ ok: true, output: 4 });
      expect(checker.stats).toMatchObject({ workerStarts: 1, checked: 2, warmUpsChecked: WARM_UP_PROGRAMS.length });
    });
  }, 60_000);

  it("prepares nothing with warmUp: false", async () => {
    const compiles = schemaCompileCount();
    await withYard({ warmUp: false }, async (yard, checker) => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(checker.stats.workerStarts).toBe(0);
      expect(schemaCompileCount()).toBe(compiles);
      // Each part then starts on first use.
      expect(await yard.run(PROGRAM)).toMatchObject({ ok: true, output: 4 });
      expect(checker.stats.workerStarts).toBe(1);
    });
  }, 60_000);

  it("starts no process when the session is closed before its warm-up began", async () => {
    const { code, children } = await runHost("close-now");
    expect(code).toBe(0);
    expect(children).toEqual([]);
  }, 60_000);

  it("leaves no process behind, and holds no host open, when the session is closed during its warm-up", async () => {
    const { code, ms, children } = await runHost("close-during");
    expect(code).toBe(0);
    expect(ms).toBeLessThan(30_000);
    // The warm-up had started the checker (and perhaps esbuild's service); they end with their host.
    expect(children.length).toBeGreaterThan(0);
    await waitFor(() => children.every((pid) => !isRunning(pid)), 5_000, "the host's child processes to end");
  }, 60_000);

  it("holds its spare isolate while runs are in the sandbox, compiling validators meanwhile, and prepares it after", async () => {
    const executor = new InProcessExecutor();
    const spares: number[] = [];
    // The real executor, with its warm-up's calls counted.
    const counted = Object.assign(Object.create(executor) as InProcessExecutor, {
      warmUp: (memoryLimitMb: number) => {
        spares.push(memoryLimitMb);
        executor.warmUp(memoryLimitMb);
      },
    });
    let busy = true;
    const source = createYard({ warmUp: false });
    const catalog = new ToolRegistry(source.registry.snapshot().tools.map((tool) => tool.definition));
    await source.close();
    const compiles = schemaCompileCount();
    const warmUp = warmUpWithoutChecks(catalog, counted, () => busy);
    try {
      // What a run's live calls need goes on: the tool's validators are compiled while the run is busy.
      await waitFor(() => schemaCompileCount() >= compiles + 2, 30_000, "the validators to be compiled");
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(spares).toEqual([]);
      busy = false;
      await waitFor(() => spares.length === 1, 5_000, "the spare isolate once the runs are out");
      expect(spares).toEqual([48]);
    } finally {
      warmUp.stop();
      await executor.close();
    }
  }, 60_000);

  it("compiles 30 tools' validators while the event loop has nothing else to do", async () => {
    const marker = `m${Math.random().toString(36).slice(2)}`;
    const catalog = new ToolRegistry(
      Array.from({ length: 30 }, (_, index) =>
        defineTool({
          name: `items.get${index}`,
          description: "Gets an item.",
          // A schema of its own per tool and run: validators are cached by schema text, process-wide.
          inputSchema: {
            type: "object",
            properties: { id: { type: "string" }, [`${marker}${index}`]: { type: "number" } },
          },
          execute: () => ({}),
        }),
      ),
    );
    const compiles = schemaCompileCount();
    const warmUp = warmUpWithoutChecks(catalog, undefined);
    try {
      // Sleeps of one timer each, nothing else to wake the loop: about 40 steps of a few ms must
      // run on their own (as turns of an unreferenced setImmediate, one or two ran a second).
      for (let slept = 0; slept < 4 && schemaCompileCount() < compiles + 30; slept++) {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
      expect(schemaCompileCount()).toBeGreaterThanOrEqual(compiles + 30);
    } finally {
      warmUp.stop();
    }
  }, 30_000);
});
