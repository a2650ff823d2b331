// Host side of type checking: runs ProgramTypeChecker in a worker thread so a 20-40 ms check
// (570 ms cold) never stalls the tool calls of other runs on the main event loop.
// Checks are queued and sent one at a time; a dead or stuck worker fails only the requests
// it held and is replaced on next use. An idle worker never keeps the process alive.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker, type WorkerOptions } from "node:worker_threads";
import type { Diagnostic } from "../contract.js";
import { SwitchyardError } from "../errors.js";
import type { ProgramForm } from "./program-wrapper.js";
import { type ContractDeclarations, NO_CONTRACT } from "./contract-declarations.js";
import type { TypeCheckRequest, TypeCheckResponse } from "./type-check-worker.js";

/** Options of a TypeChecker. */
export interface TypeCheckerOptions {
  /**
   * Longest one check may take, in ms, before the worker is terminated and the check rejects.
   * Default 15 000: a cold check takes about 0.6 s, so only a pathological program gets near.
   */
  readonly timeoutMs?: number;
  /** Old-generation heap limit of the worker, in MB. Default 512; TypeScript with lib es2022 uses about 100. */
  readonly memoryLimitMb?: number;
}

interface PendingCheck {
  readonly request: TypeCheckRequest;
  readonly resolve: (diagnostics: Diagnostic[]) => void;
  readonly reject: (error: Error) => void;
}

const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_MEMORY_LIMIT_MB = 512;

/**
 * Type-checks programs in a worker thread; see `ProgramTypeChecker.check` for what a check
 * returns. The worker starts on the first check (so the first check pays about 0.3 s of
 * worker and compiler start-up on top of the cold check) and lives until `close()`.
 */
export class TypeChecker {
  readonly #timeoutMs: number;
  readonly #memoryLimitMb: number;
  #worker: Worker | undefined;
  #workerError: Error | undefined;
  readonly #queue: PendingCheck[] = [];
  #inFlight: PendingCheck | undefined;
  #timer: NodeJS.Timeout | undefined;
  #nextId = 1;
  #closed = false;

  constructor(options: TypeCheckerOptions = {}) {
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#memoryLimitMb = options.memoryLimitMb ?? DEFAULT_MEMORY_LIMIT_MB;
  }

  /**
   * Type-checks `source` (wrapped as `form`, default the body of an async function) against
   * `declarations` and the run's `contract` (default none). Resolves to
   * the diagnostics, empty when the program type-checks; with `lint: true`, the lint warnings
   * (severity "warning") follow when there are no errors. Rejects with `SwitchyardError`
   * (`CONFIG_INVALID`) when the declarations do not compile; with an Error when the check
   * timed out, the worker died or failed to start, or the checker was closed.
   */
  check(
    source: string,
    declarations: string,
    options: { lint?: boolean; form?: ProgramForm; contract?: ContractDeclarations } = {},
  ): Promise<Diagnostic[]> {
    if (this.#closed) return Promise.reject(new Error("TypeChecker is closed; create a new one to check programs."));
    return new Promise<Diagnostic[]>((resolve, reject) => {
      this.#queue.push({
        request: {
          id: this.#nextId++,
          source,
          declarations,
          lint: options.lint === true,
          form: options.form ?? "body",
          contract: options.contract ?? NO_CONTRACT,
        },
        resolve,
        reject,
      });
      this.#pump();
    });
  }

  /** Stops the worker; checks still queued or running reject. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    const worker = this.#worker;
    this.#worker = undefined;
    this.#failAll(new Error("TypeChecker was closed before the check finished."));
    if (worker !== undefined) await worker.terminate();
  }

  #pump(): void {
    if (this.#inFlight !== undefined) return;
    const next = this.#queue.shift();
    if (next === undefined) {
      // Idle: the worker must not be what keeps the host process running.
      this.#worker?.unref();
      return;
    }
    let worker: Worker;
    try {
      worker = this.#ensureWorker();
    } catch (error) {
      next.reject(new Error("Could not start the type-check worker.", { cause: error }));
      this.#pump();
      return;
    }
    // Referenced while busy, so `await checker.check(...)` alone keeps the process alive.
    worker.ref();
    this.#inFlight = next;
    this.#timer = setTimeout(() => this.#timeOut(next), this.#timeoutMs);
    this.#timer.unref();
    worker.postMessage(next.request);
  }

  #ensureWorker(): Worker {
    if (this.#worker !== undefined) return this.#worker;
    const worker = startWorker(this.#memoryLimitMb);
    this.#worker = worker;
    this.#workerError = undefined;
    worker.on("message", (response: TypeCheckResponse) => {
      if (this.#worker === worker) this.#settle(response);
    });
    worker.on("error", (error) => {
      if (this.#worker === worker) this.#workerError = error;
    });
    worker.on("exit", (exitCode) => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      const reason = this.#workerError?.message ?? `exit code ${exitCode}`;
      this.#failAll(
        new Error(`The type-check worker stopped (${reason}); the next check starts a new one.`, {
          cause: this.#workerError,
        }),
      );
    });
    return worker;
  }

  #settle(response: TypeCheckResponse): void {
    const pending = this.#inFlight;
    if (pending === undefined || pending.request.id !== response.id) return;
    this.#inFlight = undefined;
    clearTimeout(this.#timer);
    if (response.ok) pending.resolve(response.diagnostics);
    else if (response.kind === "config" && response.code !== "INTERNAL_ERROR") {
      pending.reject(new SwitchyardError(response.code, response.message, response.details));
    } else pending.reject(new Error(`The type checker failed: ${response.message}`));
    this.#pump();
  }

  #timeOut(pending: PendingCheck): void {
    if (this.#inFlight !== pending) return;
    // A stuck compiler cannot be interrupted: drop the worker, keep the queue for a new one.
    const worker = this.#worker;
    this.#worker = undefined;
    this.#inFlight = undefined;
    void worker?.terminate();
    pending.reject(new Error(`Type checking took longer than ${this.#timeoutMs} ms and was stopped.`));
    this.#pump();
  }

  #failAll(error: Error): void {
    clearTimeout(this.#timer);
    const pending = [...(this.#inFlight === undefined ? [] : [this.#inFlight]), ...this.#queue.splice(0)];
    this.#inFlight = undefined;
    for (const check of pending) check.reject(error);
  }
}

/**
 * Starts the worker for whichever form this module runs as. Compiled JavaScript loads the
 * sibling .js entry directly. TypeScript source (vitest, `node --import tsx`) cannot rely on
 * the parent's loader: Node 20 applies neither the parent's hooks nor an `--import` in a
 * worker's execArgv to the worker's entry, so an eval'd entry loads it through tsx's API.
 */
function startWorker(memoryLimitMb: number): Worker {
  const fromSource = new URL(import.meta.url).pathname.endsWith(".ts");
  const entry = new URL(fromSource ? "./type-check-worker.ts" : "./type-check-worker.js", import.meta.url);
  const options: WorkerOptions = { resourceLimits: { maxOldGenerationSizeMb: memoryLimitMb } };
  const script = fromSource
    ? `import(${JSON.stringify(tsxApiUrl())}).then(({ tsImport }) => tsImport(${JSON.stringify(entry.href)}, ${JSON.stringify(import.meta.url)}));`
    : undefined;
  // Inherit the parent's flags (conditions, source maps) minus those a worker refuses.
  const inherited = process.execArgv.filter((flag) => flag !== "--no-node-snapshot");
  const create = (execArgv: string[]): Worker =>
    script === undefined
      ? new Worker(entry, { ...options, execArgv })
      : new Worker(script, { ...options, execArgv, eval: true });
  try {
    return create(inherited);
  } catch (error) {
    if ((error as { code?: unknown }).code !== "ERR_WORKER_INVALID_EXEC_ARGV") throw error;
    return create([]);
  }
}

function tsxApiUrl(): string {
  // The `import` condition's file: require.resolve would pick the CommonJS build, which
  // cannot load tsx's ESM hooks when imported from a worker.
  const manifestPath = createRequire(import.meta.url).resolve("tsx/package.json");
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as {
    exports?: { "./esm/api"?: { import?: { default?: string } } };
  };
  const entry = manifest.exports?.["./esm/api"]?.import?.default ?? "./dist/esm/api/index.mjs";
  return pathToFileURL(join(dirname(manifestPath), entry)).href;
}
