// Host side of type checking: runs ProgramTypeChecker in a worker thread so a 20-40 ms check
// (570 ms cold) never stalls the tool calls of other runs on the main event loop.
// Checks are queued and sent one at a time. A worker that dies (out of memory, a crash) is
// replaced at once and the check it held is tried once more, after those queued behind it; a
// check that kills two workers, or outlives its timeout, is rejected, and no other check fails
// with it. An idle worker never keeps the process alive. A check whose content was checked
// before is answered from a bounded cache without the worker.

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker, type WorkerOptions } from "node:worker_threads";
import type { Diagnostic } from "../contract.js";
import { SwitchyardError } from "../errors.js";
import type { ProgramForm } from "./program-wrapper.js";
import { type CheckContent, DEFAULT_MAX_CACHED_CHECKS, TypeCheckCache } from "./type-check-cache.js";
import { type ContractDeclarations, NO_CONTRACT } from "./contract-declarations.js";
import type { ScopedDeclarations } from "./checked-declarations.js";
import { type ToolReferences, WHOLE_CATALOG } from "./find-tool-references.js";
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
  /**
   * Finished checks remembered by content hash (program, declarations, contract, form, lint),
   * least recently used evicted first. Default 256; 0 turns the cache off. Each entry holds at
   * most 50 diagnostics.
   */
  readonly maxCachedChecks?: number;
}

/** Counters a test or benchmark can read; they never influence a check. */
export interface TypeCheckerStats {
  /** Checks sent to a worker (each attempt counts). */
  readonly checked: number;
  /** Checks answered from the cache, or by joining an identical check already on its way. */
  readonly cacheHits: number;
  /** Workers started (the first, and each replacement). */
  readonly workerStarts: number;
  /** Checks sent again after the worker died under them. */
  readonly retries: number;
  /** Programs whose references were read in the worker to choose their declarations (scoped checks). */
  readonly referenceScans: number;
  /** Characters of declarations sent with checks, in total. */
  readonly declarationChars: number;
}

type Answer = Extract<TypeCheckResponse, { ok: true }>;

interface PendingCheck {
  readonly request: TypeCheckRequest;
  readonly resolve: (answer: Answer) => void;
  readonly reject: (error: Error) => void;
  /** Workers this check was sent to so far. */
  attempts: number;
}

/** Workers a check may be sent to: a second one tells a one-off crash from a program that kills the checker. */
const MAX_ATTEMPTS = 2;

const DEFAULT_TIMEOUT_MS = 15_000;
/** Programs whose references are remembered, by a hash of their form and text. */
const MAX_REMEMBERED_REFERENCES = 256;
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
  readonly #cache: TypeCheckCache;
  /** Checks on their way, by cache key: an identical request joins the one already queued. */
  readonly #underway = new Map<string, Promise<Diagnostic[]>>();
  #checked = 0;
  #cacheHits = 0;
  #workerStarts = 0;
  #retries = 0;
  #referenceScans = 0;
  #declarationChars = 0;
  /** References by program (form and source), least recently used evicted first. */
  readonly #references = new Map<string, ToolReferences>();

  constructor(options: TypeCheckerOptions = {}) {
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#memoryLimitMb = options.memoryLimitMb ?? DEFAULT_MEMORY_LIMIT_MB;
    this.#cache = new TypeCheckCache(options.maxCachedChecks ?? DEFAULT_MAX_CACHED_CHECKS);
  }

  /** Counters for tests and benchmarks. */
  get stats(): TypeCheckerStats {
    return {
      checked: this.#checked,
      cacheHits: this.#cacheHits,
      workerStarts: this.#workerStarts,
      retries: this.#retries,
      referenceScans: this.#referenceScans,
      declarationChars: this.#declarationChars,
    };
  }

  /**
   * Type-checks `source` (wrapped as `form`, default the body of an async function) against
   * `declarations` and the run's `contract` (default none), or answers from the cache when the
   * same content was checked before. `ScopedDeclarations` are chosen for the program: the worker
   * reads which tools it references first (remembered per program), and the check (and its
   * cache key) covers those tools' declarations only. Resolves to
   * the diagnostics, empty when the program type-checks; with `lint: true`, the lint warnings
   * (severity "warning") follow when there are no errors. Rejects with `SwitchyardError`
   * (`CONFIG_INVALID`) when the declarations do not compile; with an Error when the check
   * timed out, killed two workers, a worker failed to start, or the checker was closed.
   */
  check(
    source: string,
    declarations: string | ScopedDeclarations,
    options: { lint?: boolean; form?: ProgramForm; contract?: ContractDeclarations } = {},
  ): Promise<Diagnostic[]> {
    if (this.#closed) return Promise.reject(new Error("TypeChecker is closed; create a new one to check programs."));
    if (typeof declarations !== "string") {
      return this.#referencesOf(source, options.form ?? "body").then((references) =>
        this.check(source, declarations.select(references, options.contract ?? NO_CONTRACT), options),
      );
    }
    const content: CheckContent = {
      source,
      declarations,
      lint: options.lint === true,
      form: options.form ?? "body",
      contract: options.contract ?? NO_CONTRACT,
    };
    const key = this.#cache.keyOf(content);
    const cached = this.#cache.get(key);
    if (cached !== undefined) {
      this.#cacheHits += 1;
      return Promise.resolve(cached);
    }
    const underway = this.#underway.get(key);
    if (underway !== undefined) {
      this.#cacheHits += 1;
      return underway.then((diagnostics) => [...diagnostics]);
    }
    const checking = new Promise<Diagnostic[]>((resolve, reject) => {
      const request = { id: this.#nextId++, kind: "check" as const, ...content };
      this.#queue.push({ request, resolve: (answer) => resolve(answer.diagnostics), reject, attempts: 0 });
      this.#pump();
    });
    this.#underway.set(key, checking);
    checking.then(
      (diagnostics) => {
        this.#underway.delete(key);
        this.#cache.set(key, diagnostics);
      },
      () => this.#underway.delete(key),
    );
    return checking.then((diagnostics) => [...diagnostics]);
  }

  /** What `source` reads of `tools`, from the worker (a syntax-tree walk) or remembered. */
  #referencesOf(source: string, form: ProgramForm): Promise<ToolReferences> {
    // Hashed: the map must not hold 256 programs' text a second time.
    const key = createHash("sha256").update(`${form}\0`).update(source).digest("base64");
    const known = this.#references.get(key);
    if (known !== undefined) {
      this.#references.delete(key);
      this.#references.set(key, known);
      return Promise.resolve(known);
    }
    return new Promise<ToolReferences>((resolve, reject) => {
      const request = { id: this.#nextId++, kind: "references" as const, source, form };
      const found = (answer: Answer): void => {
        const references = answer.references ?? WHOLE_CATALOG;
        this.#references.set(key, references);
        while (this.#references.size > MAX_REMEMBERED_REFERENCES) {
          const oldest = this.#references.keys().next();
          if (oldest.done === true) break;
          this.#references.delete(oldest.value);
        }
        resolve(references);
      };
      this.#queue.push({ request, resolve: found, reject, attempts: 0 });
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
    if (next.request.kind === "references") this.#referenceScans += 1;
    else {
      this.#checked += 1;
      this.#declarationChars += next.request.declarations.length;
    }
    next.attempts += 1;
    worker.postMessage(next.request);
  }

  #ensureWorker(): Worker {
    if (this.#worker !== undefined) return this.#worker;
    const worker = startWorker(this.#memoryLimitMb);
    this.#workerStarts += 1;
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
      this.#crashed(this.#workerError?.message ?? `exit code ${exitCode}`, this.#workerError);
    });
    return worker;
  }

  /**
   * The worker died under the check in flight (the queue never reached it). That check goes
   * to the back of the queue once, so the checks waiting behind a program that kills the
   * checker are not held up by its second attempt; the next one starts a new worker now.
   */
  #crashed(reason: string, cause: Error | undefined): void {
    const pending = this.#inFlight;
    this.#inFlight = undefined;
    clearTimeout(this.#timer);
    if (pending !== undefined) {
      if (pending.attempts < MAX_ATTEMPTS) {
        this.#retries += 1;
        this.#queue.push(pending);
      } else {
        pending.reject(
          new Error(
            `The type-check worker stopped ${pending.attempts} times while checking this program (${reason}); it was not checked.`,
            { cause },
          ),
        );
      }
    }
    this.#pump();
  }

  #settle(response: TypeCheckResponse): void {
    const pending = this.#inFlight;
    if (pending === undefined || pending.request.id !== response.id) return;
    this.#inFlight = undefined;
    clearTimeout(this.#timer);
    if (response.ok) pending.resolve(response);
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
