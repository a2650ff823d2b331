// Host side of type checking: runs ProgramTypeChecker in a child process, so a 20-40 ms check
// (0.5 s cold) never stalls the tool calls of other runs, and a program that exhausts the
// checker's heap ends that process only, never the host (a worker thread's heap limit can abort
// the whole process on Node 22 and 24: nodejs/node#47224). Checks are queued and sent one at a
// time. A process that dies (out of memory, a crash) is replaced at once and the check it held is
// tried once more, after those queued behind it; a check that kills two processes, or outlives
// its timeout, is rejected, and no other check fails with it. An idle checker never keeps the
// host alive, and it exits with its host. A check whose content was checked before is answered
// from a bounded cache without the process.

import { createHash } from "node:crypto";
import type { Diagnostic } from "../contract.js";
import { SwitchyardError } from "../errors.js";
import type { ProgramForm } from "./program-wrapper.js";
import { type CheckContent, DEFAULT_MAX_CACHED_CHECKS, TypeCheckCache } from "./type-check-cache.js";
import { type ContractDeclarations, NO_CONTRACT } from "./contract-declarations.js";
import type { ScopedDeclarations } from "./checked-declarations.js";
import { type ToolReferences, WHOLE_CATALOG } from "./tool-references.js";
import { type CheckerProcess, startCheckerProcess } from "./start-checker-process.js";
import type { CheckRequest, ReferencesRequest, TypeCheckRequest, TypeCheckResponse } from "./type-check-worker.js";

/** Options of a TypeChecker. */
export interface TypeCheckerOptions {
  /**
   * Longest one check may take, in ms, before the checker process is killed and the check rejects.
   * Default 15 000: a cold check takes about 0.6 s, so only a pathological program gets near.
   */
  readonly timeoutMs?: number;
  /**
   * Old-generation heap limit of the checker process, in MB (`--max-old-space-size`). Default 512;
   * TypeScript with lib es2022 uses about 100. A program that needs more ends that process only.
   */
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
  /**
   * Checks sent to a checker process (each attempt counts; warm-ups do not). A check sent on the
   * guess of its references counts when the process ran it (the guess held).
   */
  readonly checked: number;
  /** Checks answered from the cache, or by joining an identical check already on its way. */
  readonly cacheHits: number;
  /** Checker processes started (the first, and each replacement). */
  readonly workerStarts: number;
  /** Checks sent again after the checker process died under them. */
  readonly retries: number;
  /** Warm-up programs set aside, not yet sent, because a real check arrived (each time it happened). */
  readonly warmUpsGivenWay: number;
  /** Warm-up programs the process checked (given way or not). */
  readonly warmUpsChecked: number;
  /** Programs whose references were read in the checker process to choose their declarations (scoped checks). */
  readonly referenceScans: number;
  /** Characters of declarations checked against, in total (sent to the process only when they change). */
  readonly declarationChars: number;
  /** Scoped checks answered in the request that read the program's references (it used the last program's tools). */
  readonly guessedChecks: number;
}

type Answer = Extract<TypeCheckResponse, { ok: true }>;

/** What the host keeps of a request: a check always holds its declarations; the wire may leave them out. */
type PendingRequest = (CheckRequest & { readonly declarations: string }) | ReferencesRequest;

interface PendingCheck {
  readonly request: PendingRequest;
  readonly resolve: (answer: Answer) => void;
  readonly reject: (error: Error) => void;
  /** A warm-up: never counted, retried or cached, and it keeps no process alive. */
  readonly warmUp: boolean;
  /** Processes this check was sent to so far. */
  attempts: number;
}

/** Processes a check may be sent to: a second one tells a one-off crash from a program that kills the checker. */
const MAX_ATTEMPTS = 2;

const DEFAULT_TIMEOUT_MS = 15_000;
/** Idle time after which warm-ups that gave way are checked after all: longer than a session's gap between runs. */
const RESUME_WARM_UP_IDLE_MS = 250;
/** Programs whose references are remembered, by a hash of their form and text. */
const MAX_REMEMBERED_REFERENCES = 256;
const DEFAULT_MEMORY_LIMIT_MB = 512;

/** The checker process in use and what it was last sent. */
interface RunningProcess extends CheckerProcess {
  /** The declarations text the process holds: sent again only when a request's differs. */
  declarations: string | undefined;
}

/**
 * Type-checks programs in a child process; see `ProgramTypeChecker.check` for what a check
 * returns. The process starts on the first check or `warmUp` (about 0.1 s to start, 0.5 s more
 * to load TypeScript and parse the lib) and lives until `close()` or the host's end.
 */
export class TypeChecker {
  readonly #timeoutMs: number;
  readonly #memoryLimitMb: number;
  #process: RunningProcess | undefined;
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
  #warmUpsGivenWay = 0;
  #warmUpsChecked = 0;
  /** Warm-ups that gave way to a real check, queued again when the process is next idle. */
  readonly #parked: PendingCheck[] = [];
  #resumeTimer: NodeJS.Timeout | undefined;
  #referenceScans = 0;
  #declarationChars = 0;
  #guessedChecks = 0;
  /** References by program (form and source), least recently used evicted first. */
  readonly #references = new Map<string, ToolReferences>();
  /** The last scoped check's references and the declarations chosen for them: a new program's guess. */
  #lastScoped: ScopedGuess | undefined;

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
      warmUpsGivenWay: this.#warmUpsGivenWay,
      warmUpsChecked: this.#warmUpsChecked,
      referenceScans: this.#referenceScans,
      declarationChars: this.#declarationChars,
      guessedChecks: this.#guessedChecks,
    };
  }

  /**
   * Type-checks `source` (wrapped as `form`, default the body of an async function) against
   * `declarations` and the run's `contract` (default none), or answers from the cache when the
   * same content was checked before. `ScopedDeclarations` are chosen for the program: the process
   * reads which tools it references first (remembered per program; a new program's are read in
   * the request that checks it against the last program's tools, which stands when it references
   * the same), and the check (and its cache key) covers those tools' declarations only. Resolves to
   * the diagnostics, empty when the program type-checks; with `lint: true`, the lint warnings
   * (severity "warning") follow when there are no errors. Rejects with `SwitchyardError`
   * (`CONFIG_INVALID`) when the declarations do not compile; with an Error when the check
   * timed out, killed two checker processes, a process failed to start, or the checker was closed.
   */
  check(source: string, declarations: string | ScopedDeclarations, options: CheckOptions = {}): Promise<Diagnostic[]> {
    if (this.#closed) return Promise.reject(new Error("TypeChecker is closed; create a new one to check programs."));
    if (typeof declarations !== "string") {
      const form = options.form ?? "body";
      const contract = options.contract ?? NO_CONTRACT;
      const guess = this.#lastScoped;
      // A program not seen before most often uses the tools the last one did: check it against those
      // tools' declarations in the same round trip that reads its references.
      if (guess !== undefined && guess.contract === contract.declarations && !this.#knowsReferences(source, form)) {
        return this.#checkOnGuess(source, declarations, options, guess);
      }
      return this.#referencesOf(source, form).then((references) =>
        this.check(source, this.#choose(declarations, references, contract), options),
      );
    }
    const content = checkContent(source, declarations, options);
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
      this.#enqueue({
        request,
        resolve: (answer) => resolve(answer.diagnostics),
        reject,
        warmUp: false,
        attempts: 0,
      });
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

  /**
   * Starts the checker process now, in the background, and has it check `programs` (small; type
   * errors are fine) against `declarations` and read their references, so the first real check
   * finds TypeScript loaded, the lib and the declarations parsed and the compiler's code optimised.
   * Never blocks or keeps the host alive, and never rejects: a failed warm-up is silent (the next
   * check starts a process again). A check that arrives meanwhile waits behind it in the same
   * process rather than starting a second one.
   * Resolves when the warm-up is done (or failed, or the checker closed).
   */
  warmUp(declarations: string, programs: readonly string[]): Promise<void> {
    if (this.#closed) return Promise.resolve();
    const done = programs.map(
      (source) =>
        new Promise<void>((resolve) => {
          const content: CheckContent = { source, declarations, lint: true, form: "body", contract: NO_CONTRACT };
          this.#queue.push({
            request: { id: this.#nextId++, kind: "check", ...content, warmUp: true },
            resolve: () => resolve(),
            reject: () => resolve(),
            warmUp: true,
            attempts: MAX_ATTEMPTS - 1,
          });
        }),
    );
    this.#pump();
    return Promise.all(done).then(() => undefined);
  }

  /** The declarations `scoped` chooses for `references`, remembered as the next new program's guess. */
  #choose(scoped: ScopedDeclarations, references: ToolReferences, contract: ContractDeclarations): string {
    const declarations = scoped.select(references, contract);
    this.#lastScoped = { references, declarations, contract: contract.declarations };
    return declarations;
  }

  /**
   * Checks `source` against the guess's declarations if its references are the guess's, in one
   * request that also reads them. The answer stands only when the declarations chosen for the
   * references it found are the very text checked (the catalog may have changed meanwhile);
   * otherwise the program is checked against those, as any scoped check is.
   */
  #checkOnGuess(
    source: string,
    scoped: ScopedDeclarations,
    options: CheckOptions,
    guess: ScopedGuess,
  ): Promise<Diagnostic[]> {
    const content = checkContent(source, guess.declarations, options);
    return new Promise<Diagnostic[]>((resolve, reject) => {
      const request = { id: this.#nextId++, kind: "check" as const, ...content, ifReferences: guess.references };
      const answered = (answer: Answer): void => {
        const references = answer.references ?? WHOLE_CATALOG;
        this.#rememberReferences(referencesKey(source, content.form), references);
        const declarations = this.#choose(scoped, references, content.contract);
        if (answer.checked !== true || declarations !== guess.declarations) {
          resolve(this.check(source, declarations, options));
          return;
        }
        this.#checked += 1;
        this.#guessedChecks += 1;
        this.#cache.set(this.#cache.keyOf(content), answer.diagnostics);
        resolve([...answer.diagnostics]);
      };
      // The guess's declarations may not compile with this contract where the chosen ones would.
      const failed = (error: Error): void => {
        if (!SwitchyardError.isInstance(error)) reject(error);
        else
          resolve(
            this.#referencesOf(source, content.form).then((references) =>
              this.check(source, this.#choose(scoped, references, content.contract), options),
            ),
          );
      };
      this.#enqueue({ request, resolve: answered, reject: failed, warmUp: false, attempts: 0 });
    });
  }

  #knowsReferences(source: string, form: ProgramForm): boolean {
    return this.#references.has(referencesKey(source, form));
  }

  #rememberReferences(key: string, references: ToolReferences): void {
    this.#references.set(key, references);
    while (this.#references.size > MAX_REMEMBERED_REFERENCES) {
      const oldest = this.#references.keys().next();
      if (oldest.done === true) break;
      this.#references.delete(oldest.value);
    }
  }

  /** What `source` reads of `tools`, from the checker process (a syntax-tree walk) or remembered. */
  #referencesOf(source: string, form: ProgramForm): Promise<ToolReferences> {
    const key = referencesKey(source, form);
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
        this.#rememberReferences(key, references);
        resolve(references);
      };
      this.#enqueue({ request, resolve: found, reject, warmUp: false, attempts: 0 });
    });
  }

  /** Stops the checker process; checks still queued or running reject. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    const running = this.#process;
    this.#process = undefined;
    this.#failAll(new Error("TypeChecker was closed before the check finished."));
    if (running !== undefined) await stopProcess(running);
  }

  /**
   * Queues a real check. Warm-ups not yet sent give way to it (the one in the process already
   * loaded TypeScript and the lib), so a check arriving just after the session starts waits for
   * one warm-up program at most, not all of them; they run once the process is idle again.
   */
  #enqueue(check: PendingCheck): void {
    clearTimeout(this.#resumeTimer);
    const warmUps = this.#takeQueuedWarmUps();
    this.#warmUpsGivenWay += warmUps.length;
    this.#parked.push(...warmUps);
    this.#queue.push(check);
    this.#pump();
  }

  /**
   * Once the process has been idle for RESUME_WARM_UP_IDLE_MS (a model's turn, not the gap between
   * a session's back-to-back runs), queues the warm-ups that gave way again: the kept checker's
   * code is optimised only after about 20 checks. Dropped (resolved) if the process is gone.
   */
  #resumeWarmUpsWhenIdle(): void {
    clearTimeout(this.#resumeTimer);
    if (this.#parked.length === 0 || this.#inFlight !== undefined || this.#queue.length > 0) return;
    this.#resumeTimer = setTimeout(() => {
      const parked = this.#parked.splice(0);
      if (this.#closed || this.#process === undefined || this.#inFlight !== undefined || this.#queue.length > 0) {
        for (const warmUp of parked) warmUp.reject(new Error("Gave way to a check."));
        return;
      }
      this.#queue.push(...parked);
      this.#pump();
    }, RESUME_WARM_UP_IDLE_MS);
    this.#resumeTimer.unref();
  }

  /**
   * Ends the warm-up after one of its programs cost the process (a crash, a timeout): the rest check
   * against the same declarations (a tool source's), and each could cost a process of its own.
   */
  #dropWarmUps(): void {
    clearTimeout(this.#resumeTimer);
    const warmUps = [...this.#parked.splice(0), ...this.#takeQueuedWarmUps()];
    for (const warmUp of warmUps) warmUp.reject(new Error("An earlier warm-up program stopped the process."));
  }

  /** Takes the warm-ups not yet sent out of the queue, which keeps the real checks in their order. */
  #takeQueuedWarmUps(): PendingCheck[] {
    const warmUps = this.#queue.filter((queued) => queued.warmUp);
    if (warmUps.length > 0)
      this.#queue.splice(0, this.#queue.length, ...this.#queue.filter((queued) => !queued.warmUp));
    return warmUps;
  }

  #pump(): void {
    if (this.#inFlight === undefined) this.#sendNext();
    // Held while a check runs or waits (behind a warm-up, say), so `await checker.check(...)`
    // alone keeps the host alive; idle or only warming up, the checker holds nothing.
    const waited =
      (this.#inFlight !== undefined && !this.#inFlight.warmUp) || this.#queue.some((check) => !check.warmUp);
    if (this.#process !== undefined) holdHost(this.#process, waited);
  }

  #sendNext(): void {
    const next = this.#queue.shift();
    if (next === undefined) return;
    let running: RunningProcess;
    try {
      running = this.#ensureProcess();
    } catch (error) {
      next.reject(new Error("Could not start the type-check process.", { cause: error }));
      this.#pump();
      return;
    }
    this.#inFlight = next;
    this.#timer = setTimeout(() => this.#timeOut(next), this.#timeoutMs);
    this.#timer.unref();
    next.attempts += 1;
    let request: TypeCheckRequest = next.request;
    if (next.request.kind === "references" || next.request.ifReferences !== undefined) this.#referenceScans += 1;
    if (next.request.kind === "check") {
      const { declarations, ...rest } = next.request;
      if (!next.warmUp) {
        // A check on a guess counts once it ran (see #checkOnGuess).
        if (next.request.ifReferences === undefined) this.#checked += 1;
        this.#declarationChars += declarations.length;
      }
      request = running.declarations === declarations ? rest : next.request;
      running.declarations = declarations;
    }
    // A send that fails means the process is gone: its close event retries the check.
    running.child.send(request, (error) => {
      if (error !== null && error !== undefined && this.#process === running) running.child.kill("SIGKILL");
    });
  }

  #ensureProcess(): RunningProcess {
    if (this.#process !== undefined) return this.#process;
    const running: RunningProcess = { ...startCheckerProcess(this.#memoryLimitMb), declarations: undefined };
    this.#workerStarts += 1;
    this.#process = running;
    const { child } = running;
    child.on("message", (response: TypeCheckResponse) => {
      if (this.#process === running) this.#settle(response);
    });
    let spawnError: Error | undefined;
    child.on("error", (error) => {
      spawnError ??= error;
      // A process that never started emits no close event.
      if (child.pid === undefined && this.#process === running) {
        this.#process = undefined;
        this.#crashed(error.message, error);
      }
    });
    child.on("close", (code, signal) => {
      if (this.#process !== running) return;
      this.#process = undefined;
      this.#crashed(crashReason(running, code, signal, this.#memoryLimitMb), spawnError);
    });
    return running;
  }

  /**
   * The process died under the check in flight (the queue never reached it). That check goes
   * to the back of the queue once, so the checks waiting behind a program that kills the
   * checker are not held up by its second attempt; the next one starts a new process now.
   */
  #crashed(reason: string, cause: Error | undefined): void {
    const pending = this.#inFlight;
    this.#inFlight = undefined;
    clearTimeout(this.#timer);
    if (pending?.warmUp === true) this.#dropWarmUps();
    if (pending !== undefined) {
      if (pending.attempts < MAX_ATTEMPTS) {
        this.#retries += 1;
        this.#queue.push(pending);
      } else {
        pending.reject(
          new Error(
            `The type-check process stopped ${pending.attempts} times while checking this program (${reason}); it was not checked.`,
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
    if (pending.warmUp && response.ok) this.#warmUpsChecked += 1;
    if (response.ok) pending.resolve(response);
    else if (response.kind === "config" && response.code !== "INTERNAL_ERROR") {
      pending.reject(new SwitchyardError(response.code, response.message, response.details));
    } else pending.reject(new Error(`The type checker failed: ${response.message}`));
    this.#pump();
    this.#resumeWarmUpsWhenIdle();
  }

  #timeOut(pending: PendingCheck): void {
    if (this.#inFlight !== pending) return;
    // A stuck compiler cannot be interrupted: drop the process, keep the queue for a new one.
    const running = this.#process;
    this.#process = undefined;
    this.#inFlight = undefined;
    if (running !== undefined) void stopProcess(running);
    pending.reject(new Error(`Type checking took longer than ${this.#timeoutMs} ms and was stopped.`));
    if (pending.warmUp) this.#dropWarmUps();
    this.#pump();
  }

  #failAll(error: Error): void {
    clearTimeout(this.#timer);
    clearTimeout(this.#resumeTimer);
    const pending = [
      ...(this.#inFlight === undefined ? [] : [this.#inFlight]),
      ...this.#queue.splice(0),
      ...this.#parked.splice(0),
    ];
    this.#inFlight = undefined;
    for (const check of pending) check.reject(error);
  }
}

/**
 * Whether the checker process holds the host's event loop open: yes while a check runs (its
 * answer and its exit must arrive), no while idle or warming up.
 */
function holdHost(running: CheckerProcess, hold: boolean): void {
  const { child } = running;
  const handles = [child, child.channel, child.stderr as { ref?(): void; unref?(): void } | null];
  for (const handle of handles) {
    if (hold) handle?.ref?.();
    else handle?.unref?.();
  }
}

/** How a program is checked, beside its source and declarations; see `TypeChecker.check`. */
interface CheckOptions {
  readonly lint?: boolean;
  readonly form?: ProgramForm;
  readonly contract?: ContractDeclarations;
}

/** The content of a check, by which it is cached: `options` with their defaults filled in. */
function checkContent(source: string, declarations: string, options: CheckOptions): CheckContent {
  return {
    source,
    declarations,
    lint: options.lint === true,
    form: options.form ?? "body",
    contract: options.contract ?? NO_CONTRACT,
  };
}

/** A scoped check's references and the declarations chosen for them, with the contract they were checked with. */
interface ScopedGuess {
  readonly references: ToolReferences;
  readonly declarations: string;
  readonly contract: string;
}

/** Programs are remembered by a hash of form and text: the map must not hold 256 programs' text a second time. */
function referencesKey(source: string, form: ProgramForm): string {
  return createHash("sha256").update(`${form}\0`).update(source).digest("base64");
}

/** Kills the process (a check in progress cannot be asked to stop) and resolves once it is gone. */
function stopProcess(running: CheckerProcess): Promise<void> {
  const { child } = running;
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    // An idle process is unreferenced: without this, `await close()` could end the host's loop before the exit arrives.
    child.ref();
    child.kill("SIGKILL");
  });
}

/** Why the process ended, as a check's rejection says it: out of memory when V8 said so. */
function crashReason(
  running: CheckerProcess,
  code: number | null,
  signal: NodeJS.Signals | null,
  memoryLimitMb: number,
): string {
  if (/heap limit|heap out of memory|allocation failed/i.test(running.stderrTail())) {
    return `it ran out of memory: heap limit ${memoryLimitMb} MB`;
  }
  return signal === null ? `exit code ${code}` : `killed by ${signal}`;
}
