// The guest runtime's V8 code cache, one per process. A cache made when a script is compiled holds
// only what V8 compiled then (the top level), so every fresh isolate compiled the rest of the
// runtime (the tools proxy, the serializer, the crossing, the console) again on first call: about
// 1 ms of CPU per run here. So once per process the runtime serves a warm-up program of our own,
// in an isolate of its own and answered by stand-in bindings, and the cache is made again from
// that isolate: V8 hands back the script it already compiled, those functions in it. The cache
// comes only from that isolate, never from one a model's program ran in, because every later
// isolate starts from it.

import type ivm from "isolated-vm";
import { PROGRAM_FILE, wrapForRun } from "../program/program-wrapper.js";
import {
  decodeCallBatch,
  encodeCallAnswers,
  encodeCallFailure,
  encodeCallSuccess,
  encodeGuestConfig,
} from "../../runtime/wire.js";
import type { PreparedIsolate } from "./prepared-isolate.js";
import type { GuestBindings } from "./sandbox-executor.js";

/** The runtime script's name in stack traces; a cache is only taken up by a compile of the same name. */
const RUNTIME_FILE = "switchyard-runtime.js";

/**
 * What the warm-up program calls: the paths every run takes (a flat record and a nested argument,
 * one call and a fan-out, a failure caught, a console line, a timer, an output).
 */
const WARM_UP_PROGRAM = `
  const one = await tools.warm.up({ n: 1, s: "s", b: true, z: null });
  const many = await Promise.all([tools.warm.up({ list: [1, { k: "v" }] }), tools.warm.up({})]);
  try { await tools.warm.fail({}); } catch (error) { if (!isToolCallError(error)) throw error; }
  console.log("warm", 1, { k: [1] });
  await sleep(1);
  return { one, many };`;

/** The warm-up gives up after this long; its isolate is disposed and the first cache stays. */
const WARM_UP_DEADLINE_MS = 10_000;

/** Memory of the warm-up's isolate, in MB. */
export const WARM_UP_MEMORY_MB = 32;

interface CodeCache {
  readonly source: string;
  data: ivm.ExternalCopy<ArrayBuffer> | undefined;
  /** Set once the warm-up has been started for this source; it runs once. */
  warming: Promise<void> | undefined;
}

let cache: CodeCache | undefined;

/** Compiles the runtime in `isolate`, from this process's code cache when it has one for `source`. */
export async function compileRuntime(isolate: ivm.Isolate, source: string): Promise<ivm.Script> {
  const current = cacheFor(source);
  if (current.data !== undefined) {
    return isolate.compileScript(source, { filename: RUNTIME_FILE, cachedData: current.data });
  }
  const script = await isolate.compileScript(source, { filename: RUNTIME_FILE, produceCachedData: true });
  // Isolates prepared at once all compile afresh; a warm cache that landed meanwhile is kept.
  current.data ??= (script as ivm.Script & ivm.CachedDataResult).cachedData;
  return script;
}

/**
 * Replaces the cache for `source` with one made after the warm-up program ran in an isolate from
 * `prepare`, once per process; later calls return the same promise. Never rejects: if the warm-up
 * fails, the cache made at the first compile stays.
 */
export function warmRuntimeCodeCache(source: string, prepare: () => Promise<PreparedIsolate>): Promise<void> {
  const current = cacheFor(source);
  current.warming ??= warmUp(source, prepare).then(
    (data) => {
      if (data !== undefined && cache === current) current.data = data;
    },
    () => undefined,
  );
  return current.warming;
}

/** The cache entry for `source`; a new source (another build of the runtime) starts a new one. */
function cacheFor(source: string): CodeCache {
  if (cache?.source !== source) cache = { source, data: undefined, warming: undefined };
  return cache;
}

/** Size in bytes of the code cache this process has for `source` now (0 without one); for tests and benches. */
export function runtimeCodeCacheBytes(source: string): number {
  return cache?.source === source && cache.data !== undefined ? cache.data.copy().byteLength : 0;
}

async function warmUp(
  source: string,
  prepare: () => Promise<PreparedIsolate>,
): Promise<ivm.ExternalCopy<ArrayBuffer> | undefined> {
  const prepared = await prepare();
  const deadline = setTimeout(() => prepared.dispose(), WARM_UP_DEADLINE_MS);
  deadline.unref();
  try {
    prepared.bind(standInBindings());
    const program = await prepared.isolate.compileScript(wrapForRun(WARM_UP_PROGRAM), { filename: PROGRAM_FILE });
    await program.run(prepared.context, { promise: true, copy: true });
    const again = prepared.isolate.compileScriptSync(source, { filename: RUNTIME_FILE, produceCachedData: true });
    return (again as ivm.Script & ivm.CachedDataResult).cachedData;
  } finally {
    clearTimeout(deadline);
    prepared.dispose();
  }
}

/** Bindings that answer every call at once: `warm.fail` with a failure, anything else with null. */
function standInBindings(): GuestBindings {
  let sequence = 0;
  return {
    submit: (batchText) => {
      const answers = (decodeCallBatch(batchText)?.requests ?? []).map((request) => {
        const index = sequence++;
        return request.path === "warm.fail"
          ? encodeCallFailure(index, `warm.${index + 1}`, "TOOL_FAILED", "The warm-up's failing call.")
          : encodeCallSuccess(index, "null");
      });
      return encodeCallAnswers(answers);
    },
    wait: () => new Promise<string>(() => {}),
    log: () => {},
    config: () =>
      encodeGuestConfig({ maxArgumentBytes: 65_536, maxOutputBytes: 65_536, maxLogBytes: 4_096, maxLogLines: 10 }),
  };
}
