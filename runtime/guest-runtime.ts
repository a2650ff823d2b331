// The guest side of the bridge, evaluated inside every isolate before the program: it builds
// `tools`, `console`, the timers and `isToolCallError`, removes what must not be reachable
// (WebAssembly), and serializes the program's output with its size measured here, so an
// oversized value never reaches the host. Calls made in one turn of the program cross together
// (a timer's wake-up and `$budget` with them); console lines go to a shared buffer the host
// reads after the run; error texts are capped before they cross.
// It reaches built-ins only through guest-intrinsics.ts (captured before any program ran) and
// keeps its state in objects and lists without prototypes: a program that replaces globals or
// puts setters on prototypes breaks its own code, never a crossing or the run's ending.

import {
  applyFunction,
  charCodeOf,
  constructObject,
  DateConstructor,
  dateNow,
  defineConstant,
  defineGetter,
  defineValue,
  ErrorConstructor,
  getOwnPropertyDescriptor,
  getPrototypeOf,
  isArray,
  isError,
  isFiniteNumber,
  lockPromiseSpecies,
  newList,
  objectCreate,
  objectFreeze,
  objectHasOwn,
  objectKeys,
  objectPrototype,
  parseJson,
  PromiseConstructor,
  ProxyConstructor,
  reactTo,
  resolvedPromise,
  sliceText,
  stringifyJson,
  toText,
  WeakSetConstructor,
  weakSetAdd,
  weakSetHas,
} from "./guest-intrinsics.js";
import { type CallSite, captureCallSite, placeAtCallSite } from "./call-sites.js";
import { createGuestTimers } from "./guest-timers.js";
import {
  BUDGET_PATH,
  CLOSED_GUEST_CONFIG,
  type CallFailure,
  capErrorText,
  wordCut,
  DESCRIBE_PATH,
  decodeGuestConfig,
  encodeCall,
  encodeCallArguments,
  encodeCallPath,
  encodeProgramError,
  encodeProgramNothing,
  encodeProgramOutput,
  encodeRefusedCall,
  type GuestConfig,
  type LogLevel,
  type ReplayLogFlag,
  type LogWriter,
  MAX_BATCH_CALLS,
  MAX_BATCHES_AHEAD,
  MAX_BYTES_AHEAD,
  MAX_LOG_LINE_CHARS,
  MAX_TOOL_PATH_CHARS,
  openLogWriter,
  MAX_REPLAY_LOG_CHARS,
  REPLAY_MORE,
  REPLAY_OVER,
  REPLAY_TICK,
  REPLAY_WAIT_MARK,
  readAnswerList,
  readCallAnswers,
  replayMarkOf,
  encodeReplayLog,
  encodeReplayLogField,
  REPLAY_LATER_MARK,
  SEARCH_PATH,
  stackFrames,
  startCallBatch,
  TIMER_PATH,
  writeLogLine,
} from "./wire.js";

/** The slice of isolated-vm's Reference the guest uses. */
interface HostReference {
  applySync(receiver: undefined, args: unknown[]): unknown;
  applySyncPromise(receiver: undefined, args: unknown[]): unknown;
  applyIgnored(receiver: undefined, args: unknown[]): void;
}

/** The host's four entry points, in the order `install` receives them. */
interface HostReferences {
  /** A batch of calls; answers what is ready (blocking this isolate only while the host works). */
  readonly submit: HostReference;
  /**
   * Asks for the answers of calls that finished since; one request is outstanding at a time.
   * It returns nothing: the host hands the answers to the function `install` returned, in a
   * task of its own, so no promise of the isolate (whose `then` a program may have replaced)
   * stands between the host and the guest.
   */
  readonly wait: HostReference;
  /** The run's SharedArrayBuffer for console lines. */
  readonly logBuffer: HostReference;
  /** The run's GuestConfig as JSON. */
  readonly config: HostReference;
}

interface GuestError extends Error {
  code?: string;
  callId?: string | null;
  tool?: string;
  details?: unknown;
  /** For a value refused while it was serialized: the bytes counted up to the refusal. */
  measuredBytes?: number;
}

/**
 * The class of the errors failed calls reject with: its name is what the host reads on an error
 * a program left unhandled (isolated-vm copies a custom error's name), to report it as the
 * program's fault.
 */
class ToolCallError extends ErrorConstructor {}

// Errors made by makeError: what `isToolCallError` recognises (a program cannot forge one).
const toolCallErrors = new WeakSetConstructor<object>();
// What the tools proxies are: a value the runtime serializes that is one of them is `tools`
// itself (or a namespace of it), never a value.
const toolProxies = new WeakSetConstructor<object>();
// The promise the end-of-turn flush hangs on: one for the whole run.
const turnEnd = resolvedPromise();

/**
 * Makes a durable run's program repeatable: `Date.now()`, `new Date()` and `Date()` read the
 * run's clock (the time the last answer from the host carried, journaled, so a replay reads the
 * same values; it does not move while the program computes between crossings, as in Cloudflare
 * Workers), and `Math.random` is a seeded sfc32 generator whose seed is journaled.
 */
function installDeterminism(
  global: Record<string, unknown>,
  readClock: () => number,
  seed: readonly [number, number, number, number],
): void {
  const dateToText = DateConstructor.prototype.toString;
  const VirtualDate = function (this: unknown, ...args: unknown[]): unknown {
    if (new.target === undefined) return applyFunction(dateToText, new DateConstructor(readClock()), []);
    return constructObject(DateConstructor, args.length === 0 ? [readClock()] : args, new.target);
  } as unknown as DateConstructor;
  defineConstant(VirtualDate, "prototype", DateConstructor.prototype);
  defineValue(DateConstructor.prototype, "constructor", VirtualDate, false);
  defineValue(VirtualDate, "now", () => readClock(), false);
  defineValue(VirtualDate, "parse", DateConstructor.parse, false);
  defineValue(VirtualDate, "UTC", DateConstructor.UTC, false);
  defineValue(global, "Date", VirtualDate, false);
  // `Intl.DateTimeFormat#format()` and `formatToParts()` without a date read the real clock.
  const formatPrototype = typeof Intl === "object" ? Intl.DateTimeFormat.prototype : undefined;
  if (formatPrototype !== undefined) {
    const formatGetter = getOwnPropertyDescriptor(formatPrototype, "format")?.get;
    const formatToParts = formatPrototype.formatToParts;
    if (formatGetter !== undefined) {
      defineGetter(formatPrototype, "format", function (this: Intl.DateTimeFormat) {
        const format = applyFunction(formatGetter, this, []) as (date?: Date | number) => string;
        return (date?: Date | number) => format(date === undefined ? readClock() : date);
      });
    }
    defineValue(
      formatPrototype,
      "formatToParts",
      function (this: Intl.DateTimeFormat, date?: Date | number) {
        return applyFunction(formatToParts, this, [date === undefined ? readClock() : date]);
      },
      false,
    );
  }
  let [a, b, c, d] = seed;
  const random = (): number => {
    // sfc32 (Chris Doty-Humphrey's small fast chaotic generator): 128 bits of state, no multiply.
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  defineValue(Math, "random", random, false);
}

/**
 * Installs `tools`, `console` and the program runner; called once by the host (ahead of the
 * run, when the isolate is prepared), then deleted. The run's limits are fetched from the
 * host when the program starts. Returns the function the host hands the answers of a `wait` to.
 */
function install(
  submitHost: HostReference,
  waitHost: HostReference,
  logHost: HostReference,
  configHost: HostReference,
): (answerText: unknown) => void {
  const host = bindHost({ submit: submitHost, wait: waitHost, logBuffer: logHost, config: configHost });
  let config: GuestConfig = CLOSED_GUEST_CONFIG;
  const global = globalThis as Record<string, unknown>;
  // WebAssembly memory is not counted by the isolate's memory limit.
  delete global["WebAssembly"];
  lockPromiseSpecies();

  let finished = false;
  let logBytes = 0;
  let logLines = 0;
  let logTruncated = false;
  let logWriter: LogWriter | undefined;

  /** Writes a line within `maxBytes`; its UTF-8 size, or -1 when it was not kept. */
  const writeLine = (level: LogLevel, text: string, maxBytes: number): number => {
    // The buffer is sized for the run's budget; asked for once, when the first line is written.
    logWriter ??= openLogWriter(host.logBuffer() as SharedArrayBuffer);
    return writeLogLine(logWriter, level, text, maxBytes);
  };

  const log = (level: LogLevel, args: readonly unknown[]): void => {
    if (logTruncated) return;
    let line = "";
    for (let index = 0; index < args.length && line.length <= MAX_LOG_LINE_CHARS; index++) {
      if (index > 0) line += " ";
      line += formatLogValue(args[index]);
    }
    if (line.length > MAX_LOG_LINE_CHARS) {
      // At a word's start: a secret's head before the marker would pass every redaction rule.
      line = `${sliceText(line, 0, wordCut(line, MAX_LOG_LINE_CHARS))}… [line cut at ${MAX_LOG_LINE_CHARS} characters]`;
    }
    if (level !== "log" && level !== "info") line = `[${level}] ${line}`;
    // Each line counts its newline too.
    const bytes = logLines < config.maxLogLines ? writeLine(level, line, config.maxLogBytes - logBytes - 1) : -1;
    if (bytes < 0) {
      logTruncated = true;
      writeLine("warn", `[switchyard: log truncated after ${logLines} lines, ${logBytes} bytes]`, 1_024);
      return;
    }
    logLines += 1;
    logBytes += bytes + 1;
  };
  const consoleObject = objectFreeze({
    log: (...args: unknown[]) => log("log", args),
    info: (...args: unknown[]) => log("info", args),
    warn: (...args: unknown[]) => log("warn", args),
    error: (...args: unknown[]) => log("error", args),
    debug: (...args: unknown[]) => log("debug", args),
  });
  defineValue(global, "console", consoleObject, false);

  // Calls wait in the queue (already encoded) until the end of the current turn, then cross in
  // one batch; their answers come back in that batch's answer or in a later `wait`, found by
  // their index. A turn that fills batches sends them ahead without blocking, so the host works
  // on one while the program makes the next; every MAX_BATCHES_AHEAD + 1st blocks, which bounds
  // what waits on the host. This path runs for every call in a fresh isolate, mostly before the
  // JIT has warmed up: it allocates little and calls few functions.
  let queuedText = "";
  let queuedCalls = 0;
  let queuedBytes = 0;
  // Batches sent ahead since the last blocking crossing: crossings reach the host in order, so
  // a blocking one's answer means the host has taken every batch sent before it.
  let batchesAhead = 0;
  // Their arguments' characters (MAX_BYTES_AHEAD).
  let bytesAhead = 0;
  let flushScheduled = false;
  let nextIndex = 0;
  let inFlight = 0;
  let waiting = false;
  // Calls waiting for their answer, indexed by the call's index: dense, in call order.
  // Lists without a prototype: a setter a program puts on Array.prototype[0] is never reached.
  const pendingPath = newList<string | undefined>();
  const pendingResolve = newList<((value: unknown) => void) | undefined>();
  const pendingReject = newList<((error: unknown) => void) | undefined>();
  // Where the program made each call (call-sites.ts): a failure it does not catch names that line.
  const pendingSite = newList<CallSite | undefined>();

  // A call's path and resolvers are filed together (enqueue) and cleared together (forget).
  const forget = (index: number): void => {
    pendingResolve[index] = undefined;
    pendingReject[index] = undefined;
    pendingPath[index] = undefined;
    pendingSite[index] = undefined;
    inFlight--;
  };

  const settleValue = (index: number, value: unknown): void => {
    const resolve = pendingResolve[index];
    if (resolve === undefined) return;
    forget(index);
    resolve(value);
  };

  const settleFailure = (index: number, failure: CallFailure): void => {
    const reject = pendingReject[index];
    const path = pendingPath[index];
    if (reject === undefined || path === undefined) return;
    const site = pendingSite[index];
    forget(index);
    // Only own fields are read: a getter a program put on Object.prototype is not consulted.
    const callId = objectHasOwn(failure, "callId") ? failure.callId : null;
    const error = makeError(
      ownText(failure, "code"),
      ownText(failure, "message"),
      typeof callId === "string" ? callId : null,
      path,
    );
    if (objectHasOwn(failure, "details") && failure.details !== undefined)
      defineValue(error, "details", failure.details);
    placeAtCallSite(error, `ToolCallError: ${safeString(error.message, "")}`, callNote(error) ?? "", site);
    reject(error);
  };

  // A durable run's clock: the time the last answer carried (see `installDeterminism`).
  let clockMs = 0;
  let durable = false;
  const onClock = (nowMs: number): void => {
    // Never backwards: a journaled clock replays as it was read.
    if (nowMs > clockMs) clockMs = nowMs;
  };

  const deliver = (answerText: unknown): void => {
    try {
      readCallAnswers(answerText as string, settleValue, settleFailure, onClock);
    } catch {
      // The host only sends answers it encoded; an unreadable one answers nothing.
    }
  };

  const failAll = (from: number, to: number, message: string): void => {
    for (let index = from; index < to; index++) {
      settleFailure(index, { callId: null, code: "INTERNAL_ERROR", message });
    }
  };

  // ---- a durable run's replay (wire.ts, "a durable run's replay inside the isolate") ----
  // The chunk of journaled crossings being answered (undefined: live), in the order their answers
  // reached the program, and the cursor in it. Crossings are numbered in arrival order as the
  // host numbers them; a wait of the replay is held until its answer is next in the chunk, and is
  // answered at the next task the host lends (REPLAY_TICK), as a live wait's answer would arrive.
  let replay: unknown[] | undefined;
  let replayAt = 0;
  let crossings = 0;
  let replayLog = "";
  let heldWait = -1;
  let dueWait: unknown[] | undefined;
  let ticking = false;
  // The wire indexes the chunk answers with a success: such a call needs no call site (only a
  // failure's error is placed at one), and capturing the stack is most of a replayed call's cost.
  let replaySucceeds = newList<true | undefined>();

  /** Takes `chunk` as the replay's chunk, noting which calls it answers with a success. */
  const takeChunk = (chunk: unknown[]): void => {
    replay = chunk;
    replayAt = 0;
    replaySucceeds = newList<true | undefined>();
    for (let at = 0; at < chunk.length; at++) {
      const entry = chunk[at];
      const answers = isArray(entry) ? entry[4] : undefined;
      if (!isArray(answers)) continue;
      for (let pair = 0; pair + 1 < answers.length; pair += 2) {
        const tag = answers[pair];
        if (typeof tag === "number" && tag >= 0) replaySucceeds[tag] = true;
      }
    }
  };

  const deliverList = (answers: unknown[]): void => {
    try {
      readAnswerList(answers, settleValue, settleFailure, onClock);
    } catch {
      // A chunk the host encoded; an unreadable entry answers nothing.
    }
  };

  const replayEntry = (): unknown[] | undefined => {
    const entry = replay === undefined ? undefined : replay[replayAt];
    return isArray(entry) ? entry : undefined;
  };

  /** The held wait's answer, once it is next: taken from the chunk, delivered at the next tick. */
  const takeDueWait = (): void => {
    if (heldWait < 0 || dueWait !== undefined) return;
    const entry = replayEntry();
    if (entry === undefined || entry[0] !== heldWait || entry[1] !== REPLAY_WAIT_MARK) return;
    replayAt++;
    heldWait = -1;
    dueWait = isArray(entry[4]) ? (entry[4] as unknown[]) : [];
    requestTick();
  };

  const requestTick = (): void => {
    if (ticking) return;
    ticking = true;
    host.wait();
  };

  /**
   * Hands the log to the host, which checks it against the journal: the next chunk (true), or the
   * run is live or over (false: the guest replays no more). A held wait becomes the host's: the
   * host counts the next `wait` as that crossing.
   */
  const handOver = (flag: ReplayLogFlag): boolean => {
    const log = encodeReplayLog(flag, replayLog);
    replayLog = "";
    let answer: unknown;
    try {
      answer = host.submit(log);
    } catch {
      answer = REPLAY_OVER;
    }
    if (typeof answer === "string" && answer.charAt(0) === REPLAY_MORE && flag !== "unanswerable") {
      try {
        const chunk = parseJson(sliceText(answer, 1)) as unknown;
        if (isArray(chunk) && chunk.length > 0) {
          takeChunk(chunk);
          takeDueWait();
          return true;
        }
      } catch {
        // An unreadable chunk: live from here; the host checks what comes.
      }
    }
    replay = undefined;
    if (heldWait >= 0) {
      heldWait = -1;
      if (waiting && !ticking) host.wait();
      else if (waiting) adoptAfterTick = true;
    }
    return false;
  };
  // The held wait became the host's while a tick was on its way: the real wait follows the tick.
  let adoptAfterTick = false;

  /**
   * A crossing answered from the chunk when it is next there, as made; false when the journal is
   * used up and the host must take it live. One the chunk holds otherwise goes to the host in the
   * log, which ends the run REPLAY_DIVERGED with both sides: it is answered here, with nothing.
   */
  const replayCrossing = (mark: string, first: number, count: number, text: string): boolean => {
    const k = crossings;
    for (;;) {
      takeDueWait();
      const entry = replayEntry();
      if (entry === undefined || replayLog.length > MAX_REPLAY_LOG_CHARS) {
        if (handOver("more")) continue;
        return false;
      }
      replayLog += encodeReplayLogField(text);
      if (entry[0] !== k || entry[1] !== mark || entry[2] !== first || entry[3] !== count) {
        handOver("unanswerable");
        return true;
      }
      replayAt++;
      if (mark !== REPLAY_LATER_MARK && isArray(entry[4])) deliverList(entry[4] as unknown[]);
      takeDueWait();
      return true;
    }
  };

  const onTick = (): void => {
    ticking = false;
    const answers = dueWait;
    if (answers !== undefined) {
      dueWait = undefined;
      waiting = false;
      deliverList(answers);
      awaitAnswers();
      return;
    }
    if (adoptAfterTick) {
      adoptAfterTick = false;
      if (waiting) host.wait();
      return;
    }
    // A held wait that is still not next: every turn has run and the program made none of the
    // crossings the journal answers first. The host decides (it ends the run REPLAY_DIVERGED).
    if (replay !== undefined && heldWait >= 0) handOver("idle");
  };

  const onAnswers = (answerText: unknown): void => {
    if (answerText === REPLAY_TICK) {
      onTick();
      return;
    }
    waiting = false;
    deliver(answerText);
    awaitAnswers();
  };
  const awaitAnswers = (): void => {
    if (waiting || inFlight === 0 || finished) return;
    waiting = true;
    if (replay !== undefined) {
      heldWait = crossings++;
      replayLog += encodeReplayLogField("");
      takeDueWait();
      // Past the chunk, only the host knows whether the journal answers this wait.
      if (heldWait >= 0 && replayEntry() === undefined) handOver("more");
      if (heldWait >= 0) requestTick();
      return;
    }
    crossings++;
    host.wait();
  };

  /**
   * Sends the queued calls. Blocking, it delivers the answers ready now; `ahead`, it does not
   * wait, and a later crossing's answer or the wait brings theirs.
   */
  const cross = (ahead: boolean): void => {
    if (queuedCalls === 0) return;
    const count = queuedCalls;
    const text = queuedText;
    const bytes = queuedBytes;
    const first = nextIndex - count;
    queuedText = "";
    queuedCalls = 0;
    queuedBytes = 0;
    // One call and nothing else in flight: the program is most likely waiting for it, so it
    // crosses blocking (`mayWait`): the host holds the crossing for its answer a short while
    // (tool-bridge.ts LONE_CALL_HOLD_MS), and a slower answer comes back through the wait. Every
    // lone call, whatever its tool did last time: a crossing answered while held wakes the isolate's
    // sleeping thread once, where one sent ahead ends the isolate's task and its answer is a new
    // task the thread pool has to start (on a new thread when the pool is busy); a blocked thread
    // costs no CPU (measured 2026-12-02, 64 runs at once of 20 calls to a 2 ms tool: 0.8× the CPU per run).
    const lone = !ahead && count === 1 && inFlight === 1 && !finished;
    const answer = ahead ? "later" : lone ? "mayWait" : "now";
    // A lone call's crossing opens the guest's `wait` on the way back when none is outstanding: its
    // answer, if still working, comes through it without the guest crossing again to ask. (A larger
    // batch does not: the answers of batches sent after it come with the next blocking crossing, and
    // an open wait would bring them separately.) Not in a durable run, whose waits the journal keeps.
    const opensWait = lone && !waiting && !durable;
    const batchText = startCallBatch(answer, opensWait) + text;
    if (ahead) {
      batchesAhead++;
      bytesAhead += bytes;
    } else {
      batchesAhead = 0;
      bytesAhead = 0;
    }
    if (replay !== undefined && replayCrossing(replayMarkOf(answer), first, count, batchText)) {
      crossings++;
      if (!ahead) awaitAnswers();
      return;
    }
    crossings++;
    try {
      if (opensWait) waiting = true;
      if (ahead) {
        host.submitAhead(batchText);
        return;
      }
      deliver(host.submit(batchText));
    } catch (error) {
      // A crossing that failed opened nothing.
      if (opensWait) waiting = false;
      failAll(first, first + count, `The calls could not cross to the host: ${messageOf(error)}`);
      return;
    }
    awaitAnswers();
  };
  const flush = (): void => cross(false);
  const flushAtTurnEnd = (): void => {
    flushScheduled = false;
    flush();
  };

  // One executor for every call's promise (a closure per call would be allocated, and run cold,
  // for every call): it files the resolvers under the index `enqueue` has just taken.
  let filing = 0;
  const fileResolvers = (resolve: (value: unknown) => void, reject: (error: unknown) => void): void => {
    pendingResolve[filing] = resolve;
    pendingReject[filing] = reject;
  };

  const enqueue = (path: string, encoded: string, bytes: number, site?: CallSite): Promise<unknown> => {
    // Past the batch's size, the calls queued so far cross first, so one crossing stays bounded.
    if (queuedCalls >= MAX_BATCH_CALLS || (queuedCalls > 0 && queuedBytes + bytes > config.maxArgumentBytes)) {
      cross(batchesAhead < MAX_BATCHES_AHEAD && bytesAhead + queuedBytes <= MAX_BYTES_AHEAD);
    }
    const index = nextIndex++;
    pendingPath[index] = path;
    pendingSite[index] = site;
    filing = index;
    const promise = new PromiseConstructor<unknown>(fileResolvers);
    inFlight++;
    queuedText += encoded;
    queuedCalls++;
    queuedBytes += bytes;
    if (!flushScheduled) {
      flushScheduled = true;
      reactTo(turnEnd, flushAtTurnEnd);
    }
    return promise;
  };

  // Refused before its arguments cross: the host records it and answers its failure like any
  // other call's, so its error is made, and placed at its call site, as theirs are.
  const refuse = (path: string, code: string, bytes: number, reason: string, site?: CallSite): Promise<unknown> =>
    enqueue(path, encodeRefusedCall(path, code, bytes, reason), 0, site);

  /** A call of `tools.<path>`; `encodedPath` is the path's `encodeCallPath`, kept by the proxy that calls. */
  const callTool = (path: string, input: unknown, encodedPath?: string): Promise<unknown> => {
    if (finished) {
      const error = makeError("RUN_FINISHED", "The program has already finished; this call was not made.", null, path);
      return new PromiseConstructor<unknown>((_resolve, reject) => reject(error));
    }
    // A call the replay answers with a success never fails: its site is not needed.
    const site = replay !== undefined && replaySucceeds[nextIndex] === true ? undefined : captureCallSite(callTool);
    if (path === "") {
      const reason = "`tools` itself is not a tool; call tools.<namespace>.<name>(input).";
      return refuse(path, "TOOL_NOT_FOUND", 0, reason, site);
    }
    if (path.length > MAX_TOOL_PATH_CHARS) {
      const shown = `${sliceText(path, 0, 64)}…`;
      const reason = `No tool has a name of ${path.length} characters; tool names are at most ${MAX_TOOL_PATH_CHARS}.`;
      return refuse(shown, "TOOL_NOT_FOUND", 0, reason, site);
    }
    let argsJson: string;
    try {
      argsJson = serialize(
        input === undefined ? {} : input,
        config.maxArgumentBytes,
        "ARGUMENT_TOO_LARGE",
        "INPUT_INVALID",
        "argument",
      );
    } catch (error) {
      // Refused here, before any argument crosses; the host still gives it an id and a record.
      const refusal = toGuestError(error, path);
      const reason = capErrorText(safeString(refusal.message, ""), 1_024);
      return refuse(path, refusal.code ?? "INPUT_INVALID", refusal.measuredBytes ?? 0, reason, site);
    }
    const encoded = encodedPath === undefined ? encodeCall(path, argsJson) : encodeCallArguments(encodedPath, argsJson);
    return enqueue(path, encoded, argsJson.length, site);
  };

  // Options a program passes to `$search` are read (spread) before any call exists: one that
  // throws while read (a getter, a Proxy trap) is refused like an argument that cannot cross.
  const refuseOptions = (path: string, error: unknown): Promise<unknown> => {
    if (finished) return callTool(path, {});
    const reason = capErrorText(`The options could not be read: ${safeString(messageOf(error), "")}`, 1_024);
    return refuse(path, "INPUT_INVALID", 0, reason, captureCallSite(refuseOptions));
  };
  defineConstant(global, "tools", createToolsProxy(callTool, refuseOptions));
  defineValue(global, "isToolCallError", (value: unknown) => isToolCallError(value), false);

  // A wake-up crosses like a call (in the turn's batch, answered by index, through `wait` when
  // it is not due yet), but the host answers it itself: no record, no part of maxToolCalls.
  const timers = createGuestTimers({
    requestWake: (delayMs) => {
      const delay = toText(delayMs);
      return enqueue(TIMER_PATH, encodeCall(TIMER_PATH, delay), delay.length);
    },
    now: () => (durable ? clockMs : dateNow()),
    reportCallbackError: (error) => {
      try {
        log("error", ["Uncaught in a timer callback:", error]);
      } catch {
        // An error whose getters throw: its line is lost, the timers go on.
      }
    },
  });
  defineValue(global, "sleep", timers.sleep, false);
  defineValue(global, "setTimeout", timers.setTimeout, false);
  defineValue(global, "clearTimeout", timers.clearTimeout, false);

  const end = (encode: () => string): string => {
    finished = true;
    timers.close();
    // Calls queued in the program's last turn still cross, so each gets its record.
    flush();
    // What the replay answered is checked before the program's end is: a replay the host does
    // not accept ends REPLAY_DIVERGED, whatever the program returned.
    if (replay !== undefined) handOver("more");
    return encode();
  };

  const encodeOutput = (value: unknown): string => {
    if (value === undefined) return encodeProgramNothing();
    try {
      return encodeProgramOutput(
        serialize(value, config.maxOutputBytes, "OUTPUT_TOO_LARGE", "OUTPUT_NOT_SERIALIZABLE", "output"),
      );
    } catch (error) {
      const failure = toGuestError(error, undefined);
      return encodeProgramError(failure.code ?? "OUTPUT_NOT_SERIALIZABLE", failure.message, null);
    }
  };
  const encodeThrown = (error: unknown): string => {
    try {
      return describeThrown(error);
    } catch {
      // A hostile thrown value (a getter that throws on `message`, a trapped Proxy) must
      // still end as the program's own fault, never as a sandbox failure.
      return encodeProgramError("RUNTIME_ERROR", "Uncaught exception whose message could not be read.", null);
    }
  };

  defineValue(
    global,
    "__switchyardRun",
    (main: () => Promise<unknown>): Promise<string> => {
      delete global["__switchyardRun"];
      config = decodeGuestConfig(host.config() as string);
      // The run's input: the program's own copy, bound like a `const` (not writable, not deletable).
      if (objectHasOwn(config, "input")) defineConstant(global, "input", config.input);
      if (isArray(config.replay)) takeChunk(config.replay);
      if (config.durable !== undefined) {
        durable = true;
        clockMs = config.durable.nowMs;
        installDeterminism(global, () => clockMs, config.durable.seed);
      }
      // The program's promise is reacted to with the captured `then`, and the run's promise is
      // resolved with a string (never an object, so no `then` is looked up): whatever the
      // program replaced, its end reaches the host.
      return new PromiseConstructor<string>((resolve) => {
        try {
          reactTo(
            main(),
            (value) => {
              resolve(end(() => encodeOutput(value)));
            },
            (error) => {
              resolve(end(() => encodeThrown(error)));
            },
          );
        } catch (error) {
          resolve(end(() => encodeThrown(error)));
        }
      });
    },
    false,
  );
  return onAnswers;
}

/** `record[key]` when it is an own string, else "": answers are read without their prototype's getters. */
function ownText(record: object, key: string): string {
  const value = objectHasOwn(record, key) ? (record as Record<string, unknown>)[key] : undefined;
  return typeof value === "string" ? value : "";
}

/** The host's entry points as functions, their Reference methods read now, before any program runs. */
function bindHost(references: HostReferences): {
  submit: (batchText: string) => unknown;
  submitAhead: (batchText: string) => void;
  wait: () => void;
  logBuffer: () => unknown;
  config: () => unknown;
} {
  const { submit, wait, logBuffer, config } = references;
  const submitSync = submit.applySyncPromise;
  const submitIgnored = submit.applyIgnored;
  const waitIgnored = wait.applyIgnored;
  const logSync = logBuffer.applySync;
  const configSync = config.applySync;
  return {
    submit: (batchText) => applyFunction(submitSync, submit, [undefined, [batchText]]),
    submitAhead: (batchText) => {
      applyFunction(submitIgnored, submit, [undefined, [batchText]]);
    },
    wait: () => {
      applyFunction(waitIgnored, wait, [undefined, []]);
    },
    logBuffer: () => applyFunction(logSync, logBuffer, [undefined, []]),
    config: () => applyFunction(configSync, config, [undefined, []]),
  };
}

/** `tools.a.b(...)` at any depth: each property extends a dotted path; calling sends it. */
function createToolsProxy(
  callTool: (path: string, input: unknown, encodedPath?: string) => Promise<unknown>,
  refuseOptions: (path: string, error: unknown) => Promise<unknown>,
): unknown {
  // Read at install, before the program can replace `Symbol.toPrimitive`.
  const toPrimitive = Symbol.toPrimitive;
  const make = (path: string): unknown => {
    // `String(tools.orders)`, a template, console.log: the path as text. Without it, converting
    // looked up `toString` and `valueOf` as tools, calling both (two TOOL_NOT_FOUND records), and threw.
    const asText = (): string => (path === "" ? "[tools]" : `[tools.${path}]`);
    // This level's encoded path, made on its first call: every call of a path starts the same.
    let encodedPath: string | undefined;
    // Each level keeps its children, so a property read after the first costs one lookup.
    // Without a prototype: `tools.toString` and `tools.constructor` are tool paths like any other.
    const children = objectCreate(null) as Record<string, unknown>;
    const target = (() => {}) as unknown as object;
    // The handler has no prototype: a trap a program puts on Object.prototype (`has`,
    // `getPrototypeOf`) is not one of ours.
    const handler: ProxyHandler<object> & { __proto__: null } = {
      __proto__: null,
      get(_target, property) {
        // `then` would make the object a thenable that `await` unwraps; symbols are not names.
        // While the runtime serializes a value, `toJSON` is not a tool either: JSON.stringify
        // would call it.
        if (property === toPrimitive) return asText;
        if (typeof property !== "string" || property === "then") return undefined;
        if (property === "toJSON" && serializing.depth > 0) return undefined;
        const known = children[property];
        if (known !== undefined) return known;
        let child: unknown;
        if (path === "" && property === "$search") {
          child = (query: unknown, options?: unknown) => {
            let input: unknown;
            try {
              input = { query, ...(isObject(options) ? options : {}) };
            } catch (error) {
              return refuseOptions(SEARCH_PATH, error);
            }
            return callTool(SEARCH_PATH, input);
          };
        } else if (path === "" && property === "$describe") {
          child = (name: unknown) => callTool(DESCRIBE_PATH, { name });
        } else if (path === "" && property === "$budget") {
          child = () => callTool(BUDGET_PATH, {});
        } else {
          child = make(path === "" ? property : `${path}.${property}`);
        }
        children[property] = child;
        return child;
      },
      apply(_target, _this, args: unknown[]) {
        encodedPath ??= encodeCallPath(path);
        return callTool(path, args.length > 0 ? args[0] : undefined, encodedPath);
      },
      set() {
        return false;
      },
      defineProperty() {
        return false;
      },
    };
    const proxy = new ProxyConstructor(target, handler);
    weakSetAdd(toolProxies, proxy);
    return proxy;
  };
  return make("");
}

/**
 * JSON-serializes `value` inside the isolate with its size bounded while it is built:
 * functions, symbols, BigInt and promises are refused (a promise usually means a missing
 * `await`), and serialization stops as soon as the text could exceed `maxBytes`.
 */
function serialize(value: unknown, maxBytes: number, sizeCode: string, shapeCode: string, what: string): string {
  // One replacer for every call, reading this state: a closure per call would be allocated (and
  // run cold) for every tool call. A toJSON that calls a tool restarts the count; the size
  // measured at the end still holds the limit.
  serializing.budget = 0;
  serializing.maxBytes = maxBytes;
  serializing.sizeCode = sizeCode;
  serializing.shapeCode = shapeCode;
  serializing.what = what;
  let text: string | undefined;
  serializing.depth++;
  try {
    text = flatRecordJson(value, maxBytes) ?? stringifyJson(value, checkedReplacer);
  } catch (error) {
    if (isGuestError(error)) throw error;
    // JSON.stringify's own TypeError: a cycle.
    throw refuseValue(shapeCode, `The ${what} is not JSON-serializable: ${capErrorText(messageOf(error), 1_024)}`);
  } finally {
    serializing.depth--;
  }
  if (typeof text !== "string") text = "null";
  // A UTF-16 unit is at most 3 UTF-8 bytes: only a text that could be over the limit is measured.
  if (text.length * 3 > maxBytes) {
    const bytes = utf8Length(text);
    if (bytes > maxBytes) {
      serializing.budget = bytes;
      throw refuseValue(sizeCode, `The ${what} is ${bytes} bytes, over the ${maxBytes}-byte limit.`);
    }
  }
  return text;
}

// `depth`: serializations under way (a toJSON may call a tool, whose arguments are serialized
// inside the outer serialization).
const serializing = { budget: 0, maxBytes: 0, sizeCode: "", shapeCode: "", what: "", depth: 0 };

// Properties of a record the fast path writes itself; a larger value takes the replacer.
const MAX_FLAT_KEYS = 16;

/**
 * The JSON of what most tool arguments are, a plain object of a few strings, numbers, booleans
 * and nulls, written here without the replacer (a call from C++ into JS per key, most of
 * serialization's cost); `undefined` for anything else, or for a record the replacer's count
 * would refuse, so every refusal and its message still come from `serialize`'s one path. A
 * record it writes has each property read once, as JSON.stringify reads it; one it gives up on
 * part way is read again by the replacer's pass (a getter runs twice).
 */
function flatRecordJson(value: unknown, maxBytes: number): string | undefined {
  if (typeof value !== "object" || value === null || getPrototypeOf(value) !== objectPrototype) {
    return undefined;
  }
  // A toJSON anywhere on the chain (the program may add one to Object.prototype) changes the text.
  if ("toJSON" in value) return undefined;
  const keys = objectKeys(value);
  if (keys.length > MAX_FLAT_KEYS) return undefined;
  // The replacer's count: the root's empty key, then each key and its value.
  let budget = 4;
  let text = "{";
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!;
    const current = (value as Record<string, unknown>)[key];
    let json: string;
    switch (typeof current) {
      case "string":
        budget += key.length + 4 + current.length;
        json = stringifyJson(current);
        break;
      case "number":
        budget += key.length + 12;
        json = isFiniteNumber(current) ? toText(current) : "null";
        break;
      case "boolean":
        budget += key.length + 12;
        json = current ? "true" : "false";
        break;
      case "object":
        if (current !== null) return undefined;
        budget += key.length + 12;
        json = "null";
        break;
      default:
        // undefined is left out by JSON.stringify; functions, symbols and BigInt are refused.
        return undefined;
    }
    if (budget > maxBytes) return undefined;
    text += `${index === 0 ? "" : ","}${stringifyJson(key)}:${json}`;
  }
  // `serialize` measures the text's bytes after, as it does the replacer's.
  return `${text}}`;
}

function refuseValue(code: string, message: string): GuestError {
  const error = makeError(code, message, null, undefined);
  defineValue(error, "measuredBytes", serializing.budget);
  return error;
}

/**
 * Counts the bytes of the text being built and stops as soon as it could exceed the limit;
 * refuses functions, symbols, BigInt and promises (a promise usually means a missing `await`).
 */
function checkedReplacer(this: unknown, key: string, current: unknown): unknown {
  const state = serializing;
  state.budget += key.length + 4;
  switch (typeof current) {
    case "function":
      if (weakSetHas(toolProxies, current as object)) {
        throw refuseValue(
          state.shapeCode,
          `The ${state.what} contains \`tools\` or one of its tools at ${quoteKey(key)}: a tool is not a value; call it and use what it returns.`,
        );
      }
      throw refuseValue(
        state.shapeCode,
        `The ${state.what} contains a function at ${quoteKey(key)}; only JSON data can cross.`,
      );
    case "symbol":
      throw refuseValue(
        state.shapeCode,
        `The ${state.what} contains a symbol at ${quoteKey(key)}; only JSON data can cross.`,
      );
    case "bigint":
      throw refuseValue(
        state.shapeCode,
        `The ${state.what} contains a BigInt at ${quoteKey(key)}; convert it to a string or number.`,
      );
    case "string":
      state.budget += current.length;
      break;
    case "object":
      if (current !== null && typeof (current as { then?: unknown }).then === "function") {
        throw refuseValue(
          state.shapeCode,
          `The ${state.what} contains a Promise at ${quoteKey(key)}; did you forget \`await\`?`,
        );
      }
      break;
    default:
      state.budget += 8;
  }
  if (state.budget > state.maxBytes) {
    throw refuseValue(state.sizeCode, `The ${state.what} is larger than the ${state.maxBytes}-byte limit.`);
  }
  return current;
}

/** A key as a message quotes it: a program can make keys of any length. */
function quoteKey(key: string): string {
  return stringifyJson(key.length > 100 ? `${sliceText(key, 0, 100)}…` : key);
}

function describeThrown(error: unknown): string {
  if (isError(error)) {
    const guestError = error as GuestError;
    const name = safeString(guestError.name, "Error");
    // Both texts are capped by the encoder, before they cross: a message may be megabytes.
    return encodeProgramError(
      "RUNTIME_ERROR",
      `${name}: ${describeToolFailure(guestError)}`,
      stackFrames(readStack(guestError)) || null,
    );
  }
  return encodeProgramError("RUNTIME_ERROR", `Uncaught ${formatLogValue(error)}`, null);
}

/** An error's stack, or "" when reading it throws (a program's own Error.prepareStackTrace may). */
function readStack(error: GuestError): string {
  try {
    return safeString(error.stack, "");
  } catch {
    return "";
  }
}

/** What a failed call's error adds to its message: `NOT_FOUND from tools.x.y, call p1.3`; undefined for other errors. */
function callNote(error: GuestError): string | undefined {
  if (typeof error.code !== "string" || typeof error.tool !== "string") return undefined;
  return `${error.code} from tools.${error.tool}${typeof error.callId === "string" ? `, call ${error.callId}` : ""}`;
}

/** An error's message, with the note of a failed call: `No ticket T-1. (NOT_FOUND from tools.x.y, call p1.3)`. */
function describeToolFailure(error: GuestError): string {
  const message = safeString(error.message, "");
  const note = callNote(error);
  return note === undefined ? message : `${message} (${note})`;
}

function makeError(code: string, message: string, callId: string | null, tool: string | undefined): GuestError {
  const error = new ToolCallError(message) as GuestError;
  // Defined, not assigned: a setter a program put on Error.prototype or Object.prototype for
  // these names must not take them.
  defineValue(error, "name", "ToolCallError");
  defineValue(error, "code", code);
  defineValue(error, "callId", callId);
  if (tool !== undefined) defineValue(error, "tool", tool);
  weakSetAdd(toolCallErrors, error);
  return error;
}

/** Whether `value` is an error a tool call (or `tools.$search`, `$describe`, `$budget`) rejected with. */
function isToolCallError(value: unknown): boolean {
  return typeof value === "object" && value !== null && weakSetHas(toolCallErrors, value);
}

function toGuestError(error: unknown, tool: string | undefined): GuestError {
  if (isGuestError(error)) {
    if (tool !== undefined) defineValue(error, "tool", tool);
    return error;
  }
  return makeError("INTERNAL_ERROR", messageOf(error), null, tool);
}

/** Whether `error` is one the runtime made (and so has an own `code`), whatever a program did to Error. */
function isGuestError(error: unknown): error is GuestError & { code: string } {
  return isToolCallError(error);
}

function formatLogValue(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || value === null) return `${value}`;
  if (isError(value)) return `${safeString(value.name, "Error")}: ${safeString(value.message, "")}`;
  if (value === undefined || typeof value === "function" || typeof value === "symbol" || typeof value === "bigint") {
    return toText(value);
  }
  try {
    return stringifyJson(value) ?? toText(value);
  } catch {
    return "[unserializable]";
  }
}

function safeString(value: unknown, fallback: string): string {
  return typeof value === "string" ? value : fallback;
}

function messageOf(error: unknown): string {
  return isError(error) ? safeString(error.message, "") : toText(error);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !isArray(value);
}

function utf8Length(text: string): number {
  let bytes = text.length;
  for (let index = 0; index < text.length; index++) {
    const code = charCodeOf(text, index);
    if (code >= 0x80) bytes += code >= 0x800 && (code < 0xd800 || code > 0xdfff) ? 2 : 1;
  }
  return bytes;
}

(globalThis as Record<string, unknown>)["__switchyardInstall"] = install;
