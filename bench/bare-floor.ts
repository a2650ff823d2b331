// The floors a Switchyard run is measured against, running the same program body with the same
// tool functions: plain async JavaScript in the host (no sandbox at all), and bare isolated-vm (a
// fresh isolate per run, each call one `Reference.apply` round trip with JSON each way, as
// bench/runtime.ts's bare rows make it): the least any sandboxed run can cost on this machine.
// Neither validates, schedules, records nor limits anything; they are the cost of the logic alone.

import type ivm from "isolated-vm";
import { loadIsolatedVm } from "../src/sandbox/load-isolated-vm.js";

/** A tool as the floors call it: its `execute` with the input alone. */
export type BareTool = (input: unknown) => unknown;

const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (
  ...parameters: string[]
) => (...values: unknown[]) => Promise<unknown>;

/** The `tools` object of a program, nested by dotted path, each leaf made by `leaf(path)`. */
function nestTools(paths: readonly string[], leaf: (path: string) => unknown): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const path of paths) {
    const parts = path.split(".");
    let level = root;
    for (const part of parts.slice(0, -1)) level = (level[part] ??= {}) as Record<string, unknown>;
    level[parts.at(-1)!] = leaf(path);
  }
  return root;
}

/** The program body as a plain async function of `tools`, in the host; call it once per run. */
export function plainRunner(body: string, tools: ReadonlyMap<string, BareTool>): () => Promise<unknown> {
  const run = new AsyncFunction("tools", body);
  const object = nestTools([...tools.keys()], (path) => tools.get(path)!);
  return () => run(object);
}

/** The script a bare isolate runs: the body inside an async function whose `tools` cross by `Reference.apply`. */
function bareScript(body: string, paths: readonly string[]): string {
  const object = (level: Record<string, unknown>): string =>
    `{ ${Object.entries(level)
      .map(([key, value]) =>
        typeof value === "string"
          ? `${JSON.stringify(key)}: (input) => call(${JSON.stringify(value)}, input)`
          : `${JSON.stringify(key)}: ${object(value as Record<string, unknown>)}`,
      )
      .join(", ")} }`;
  const call =
    "const call = (path, input) => hostCall.apply(undefined, [path, JSON.stringify(input === undefined ? {} : input)], " +
    "{ result: { promise: true, copy: true } }).then((text) => JSON.parse(text));";
  return `(async () => { ${call} const tools = ${object(nestTools(paths, (path) => path))}; return JSON.stringify(await (async () => { ${body} })()); })()`;
}

/** Runs the body on bare isolated-vm, one fresh isolate per run; see the module comment. */
export class BareIsolateRunner {
  readonly #ivm = loadIsolatedVm();
  readonly #script: string;
  readonly #tools: ReadonlyMap<string, BareTool>;
  readonly #memoryLimitMb: number;

  constructor(body: string, tools: ReadonlyMap<string, BareTool>, memoryLimitMb = 16) {
    this.#script = bareScript(body, [...tools.keys()]);
    this.#tools = tools;
    this.#memoryLimitMb = memoryLimitMb;
  }

  /** One run: isolate, context, compile, run, dispose; resolves with the body's return value. */
  async run(): Promise<unknown> {
    const isolate: ivm.Isolate = new this.#ivm.Isolate({ memoryLimit: this.#memoryLimitMb });
    const tools = this.#tools;
    // Resolves to text, never rejects: a rejected host promise also surfaces in the host (platform notes).
    const host = new this.#ivm.Reference(async (path: string, argsJson: string): Promise<string> => {
      try {
        return JSON.stringify(await tools.get(path)!(JSON.parse(argsJson)));
      } catch {
        return "null";
      }
    });
    try {
      const context = await isolate.createContext();
      await context.global.set("hostCall", host);
      const compiled = await isolate.compileScript(this.#script);
      const text = (await compiled.run(context, { promise: true, copy: true })) as string;
      return JSON.parse(text);
    } finally {
      isolate.dispose();
      host.release();
    }
  }
}
