// Fresh isolates prepared ahead of demand: created, given a context, with the guest runtime
// evaluated (but not installed: the install binds one run's bridge). Each isolate serves
// exactly one run and is never returned: reuse is unsafe (a continuation left spinning by
// one run would block the next). A spare is prepared when one is taken (a worker's pool), or when
// a run announces itself while it compiles and is checked (`prepareSpare`): making one takes this
// thread about 1.5 ms, which is better spent while it waits than while a run's calls wait for it.
// How each binding crosses (blocking or not, shared memory for the console) is decided here.

import type ivm from "isolated-vm";
import {
  batchOpensWait,
  batchSentAhead,
  CLOSED_GUEST_CONFIG,
  decodeGuestConfig,
  encodeCallAnswers,
  encodeGuestConfig,
  logBufferUnits,
  readLogLines,
} from "../../runtime/wire.js";
import { guardAtExit } from "./exit-guard.js";
import { loadGuestRuntimeSource } from "./guest-runtime-source.js";
import { type IsolatedVmModule, loadIsolatedVm } from "./load-isolated-vm.js";
import { compileRuntime, WARM_UP_MEMORY_MB, warmRuntimeCodeCache } from "./runtime-code-cache.js";
import type { PreparedIsolate } from "./prepared-isolate.js";
import type { GuestBindings } from "./sandbox-executor.js";

// Returns the guest's receiver of `wait` answers (see `#prepare`).
const INSTALL_SNIPPET =
  "const receive = globalThis.__switchyardInstall($0, $1, $2, $3); delete globalThis.__switchyardInstall; return receive;";

const UNBOUND: GuestBindings = {
  submit: () => encodeCallAnswers([]),
  wait: () => new Promise<string>(() => {}),
  log: () => {},
  config: () => encodeGuestConfig(CLOSED_GUEST_CONFIG),
};

const MAX_SPARE_SIZES = 4;

/** Hands out prepared isolates, one spare per memory limit in use; see the module comment. */
export class IsolatePool {
  readonly #spares = new Map<number, Promise<PreparedIsolate>>();
  readonly #runtimeSource: () => Promise<string>;
  readonly #isolatedVm: IsolatedVmModule;
  #closed = false;
  #warmStarted = false;
  readonly #spareOnTake: boolean;
  /** Warm-ups under way (an isolate may be running their program): `close` waits for them. */
  readonly #warming = new Set<Promise<void>>();

  /**
   * `runtimeSource` gives the guest runtime's script; default: this package's own (loadGuestRuntimeSource).
   * `spareOnTake` (default true): each `take` starts preparing the next spare; false leaves that
   * to `prepareSpare`. Throws SwitchyardError `SANDBOX_UNAVAILABLE` when no isolated-vm binary loads
   * on this Node (loadIsolatedVm).
   */
  constructor(options: { runtimeSource?: () => Promise<string>; spareOnTake?: boolean } = {}) {
    this.#runtimeSource = options.runtimeSource ?? loadGuestRuntimeSource;
    this.#isolatedVm = loadIsolatedVm();
    this.#spareOnTake = options.spareOnTake ?? true;
  }

  /** A fresh prepared isolate with `memoryLimitMb`; the caller owns it and must dispose it. */
  async take(memoryLimitMb: number): Promise<PreparedIsolate> {
    const spare = this.#spares.get(memoryLimitMb);
    this.#spares.delete(memoryLimitMb);
    const taken = spare === undefined ? undefined : await spare.catch(() => undefined);
    // Prepare the next one after this turn, while the caller's program runs on its own thread.
    if (!this.#closed && this.#spareOnTake) setImmediate(() => this.#replenish(memoryLimitMb));
    const prepared = taken !== undefined && !taken.isolate.isDisposed ? taken : await this.#prepare(memoryLimitMb);
    // Once per process, after the first isolate is ready: the warm code cache later ones start from.
    if (!this.#closed) this.#warmCodeCache();
    return prepared;
  }

  /**
   * Prepares what a first run needs, in the background: the runtime's warm code cache (its
   * warm-up program run once), then a spare isolate with `memoryLimitMb` made from it. The work
   * runs on isolated-vm's threads but for a few ms of this one; it never rejects, and a pool
   * closed meanwhile keeps no spare.
   */
  warmUp(memoryLimitMb: number): void {
    if (this.#closed) return;
    this.#warmStarted = true;
    this.#track(
      this.#runtimeSource()
        .then((source) => warmRuntimeCodeCache(source, () => this.#prepare(WARM_UP_MEMORY_MB)))
        .then(
          () => this.#replenish(memoryLimitMb),
          () => undefined,
        ),
    );
  }

  /**
   * Starts preparing a spare isolate with `memoryLimitMb` after this turn of the event loop (so
   * whatever the caller sends this turn leaves first), unless one is ready or under way. Never throws.
   */
  prepareSpare(memoryLimitMb: number): void {
    if (this.#closed || this.#spares.has(memoryLimitMb)) return;
    setImmediate(() => this.#replenish(memoryLimitMb));
  }

  /**
   * Disposes the spares and waits for the warm-ups under way, so nothing of the pool runs in an
   * isolate once it resolves (a process that exits while an isolate runs can crash: platform notes).
   * Later `take` calls still work but keep no spares.
   */
  async close(): Promise<void> {
    this.#closed = true;
    const spares = [...this.#spares.values()];
    this.#spares.clear();
    for (const spare of spares) {
      const prepared = await spare.catch(() => undefined);
      prepared?.dispose();
    }
    await Promise.all(this.#warming);
  }

  #warmCodeCache(): void {
    if (this.#warmStarted) return;
    this.#warmStarted = true;
    this.#track(
      this.#runtimeSource().then(
        (source) => warmRuntimeCodeCache(source, () => this.#prepare(WARM_UP_MEMORY_MB)),
        () => undefined,
      ),
    );
  }

  /** Keeps `warming` in `#warming` until it settles, however it settles. */
  #track(warming: Promise<unknown>): void {
    const settled: Promise<void> = warming.then(
      () => void this.#warming.delete(settled),
      () => void this.#warming.delete(settled),
    );
    this.#warming.add(settled);
  }

  #replenish(memoryLimitMb: number): void {
    if (this.#closed || this.#spares.has(memoryLimitMb)) return;
    if (this.#spares.size >= MAX_SPARE_SIZES) {
      const [oldest] = this.#spares.keys();
      const evicted = this.#spares.get(oldest!);
      this.#spares.delete(oldest!);
      void evicted?.then(
        (prepared) => prepared.dispose(),
        () => undefined,
      );
    }
    const spare = this.#prepare(memoryLimitMb);
    // A failed preparation is retried by the next take; it must not surface as unhandled.
    spare.catch(() => undefined);
    this.#spares.set(memoryLimitMb, spare);
  }

  async #prepare(memoryLimitMb: number): Promise<PreparedIsolate> {
    const source = await this.#runtimeSource();
    const isolatedVm = this.#isolatedVm;
    const isolate = new isolatedVm.Isolate({ memoryLimit: memoryLimitMb });
    // Disposed first if the process exits while it lives (exit-guard.ts).
    const guard = guardAtExit(isolate);
    let bindings = UNBOUND;
    // The console's shared buffer, sized from the run's limits when the guest first logs.
    let logBuffer: SharedArrayBuffer | undefined;
    // The guest's receiver of `wait` answers. They are handed to it in a task of their own
    // rather than through a promise resolved in the isolate: resolving one with isolated-vm's
    // transferred promise would call a `Promise.prototype.then` the program may have replaced.
    let receive: ivm.Reference<(answerText: string) => void> | undefined;
    // isolated-vm hands the answer of a crossing (the guest blocked in `applySyncPromise` on
    // `submit`) over in a callback after `submit` returns, and after the promise it returned
    // settles. Disposed before that, the callback writes freed memory and the host crashes (a run
    // cancelled by its own tool, during the crossing, crashed 2 processes in 6). So a dispose asked
    // for during a crossing settles the crossing's promise with no answers and disposes in the next
    // check phase, once the callback has run (it runs in the microtasks after the settling).
    let inSubmit = false;
    let held: (() => void) | undefined;
    let disposeDeferred = false;
    const hold = (answered: Promise<string>): Promise<string> =>
      new Promise<string>((resolve) => {
        const settle = (text: string): void => {
          if (held === release) held = undefined;
          resolve(text);
        };
        const release = (): void => settle(encodeCallAnswers([]));
        held = release;
        answered.then(settle, release);
      });
    const settleThenDispose = (): void => {
      held?.();
      setImmediate(() => {
        disposeDeferred = false;
        dispose();
      });
    };
    const answer = (answerText: string): void => {
      if (receive === undefined || isolate.isDisposed) return;
      try {
        receive.applyIgnored(undefined, [answerText]);
      } catch {
        // Disposed in the meantime: the run is over and nobody waits for the answer.
      }
    };
    const openWait = (): void => {
      bindings.wait().then(answer, () => answer(encodeCallAnswers([])));
    };
    const answerCrossing = (batchText: unknown): string | Promise<string> => {
      const answered = bindings.submit(batchText);
      if (!batchOpensWait(batchText)) return typeof answered === "string" ? answered : hold(answered);
      if (typeof answered === "string" || batchSentAhead(batchText)) {
        openWait();
        return typeof answered === "string" ? answered : hold(answered);
      }
      return hold(
        answered.then((text) => {
          openWait();
          return text;
        }),
      );
    };
    const references = [
      // A batch that opens a wait gets it here, so a call the tool did not answer at once costs one
      // crossing back with its answer, not two. The wait is the host's next crossing either way:
      // a blocking batch's once answered (the guest sends nothing meanwhile), one sent ahead's at
      // once (the guest goes on), in process and in a worker alike, so a durable journal's
      // crossings are numbered the same wherever the isolate runs.
      new isolatedVm.Reference((batchText: unknown) => {
        inSubmit = true;
        let returned: string | Promise<string>;
        try {
          returned = answerCrossing(batchText);
        } finally {
          inSubmit = false;
        }
        if (disposeDeferred) settleThenDispose();
        return returned;
      }),
      new isolatedVm.Reference(openWait),
      new isolatedVm.Reference(() => {
        logBuffer ??= new SharedArrayBuffer(2 * logBufferUnits(decodeGuestConfig(bindings.config())));
        return new isolatedVm.ExternalCopy(logBuffer).copyInto({ release: true });
      }),
      new isolatedVm.Reference(() => bindings.config()),
    ];
    let disposed = false;
    const dispose = (): void => {
      if (!isolate.isDisposed && (inSubmit || held !== undefined)) {
        // During a crossing: see `inSubmit`. Inside `submit` (its tool ended the run), once it returns.
        if (!disposeDeferred) {
          disposeDeferred = true;
          if (!inSubmit) settleThenDispose();
        }
        return;
      }
      if (!isolate.isDisposed) isolate.dispose();
      if (disposed) return;
      disposed = true;
      guard.release();
      for (const reference of references) reference.release();
      receive?.release();
      receive = undefined;
      // After the isolate is gone nothing writes any more; a line it was writing is not committed.
      if (logBuffer !== undefined) {
        for (const line of readLogLines(logBuffer, decodeUtf16)) bindings.log(line.level, line.text);
      }
      logBuffer = undefined;
    };
    try {
      const context = await isolate.createContext();
      const script = await compileRuntime(isolate, source);
      await script.run(context);
      receive = await context.evalClosure(INSTALL_SNIPPET, references, { result: { reference: true } });
      return {
        isolate,
        context,
        bind: (attached) => {
          bindings = attached;
          guard.running();
        },
        dispose,
      };
    } catch (error) {
      dispose();
      throw error;
    }
  }
}

function decodeUtf16(units: Uint16Array): string {
  return Buffer.from(units.buffer, units.byteOffset, units.byteLength).toString("utf16le");
}
