// The host side of a program's tool calls. Calls arrive in batches (runtime/wire.ts), each a
// dotted path and JSON arguments, or a call the guest refused before its arguments crossed;
// sizes and depth are checked before anything is parsed, `__proto__` keys are dropped, and the
// call runs through the one pipeline. Every call gets exactly one record, trace events and one
// answer envelope, never a rejection; answers not ready when their batch is answered wait for
// the guest's next `wait`, within a byte budget: a result that would take the answers waiting for
// the guest past `maxPendingResultBytes` is dropped and the call fails RESULT_TOO_LARGE. The run's
// own requests (`$timer`, `$budget`) cross the same way but are answered by the run: no record,
// no part of `maxToolCalls`.

import type { CallErrorCode, CallRecord, JsonValue, ToolCall, ToolDefinedCode } from "../contract.js";
import {
  failedOutcome,
  runToolCall,
  startCallRecord,
  type PipelineContext,
  type PipelineResult,
} from "../execute-tool-call.js";
import {
  type CallRequest,
  DESCRIBE_PATH,
  decodeCallBatch,
  encodeCallAnswers,
  encodeCallFailure,
  encodeCallSuccess,
  encodeClockPair,
  decodeReplayLog,
  encodeReplayEntry,
  isReplayLog,
  MAX_TOOL_PATH_CHARS,
  REPLAY_LIVE,
  REPLAY_MORE,
  REPLAY_OVER,
  REPLAY_TICK,
  REPLAY_WAIT_MARK,
  replayMarkOf,
  SEARCH_PATH,
} from "../../runtime/wire.js";
import type { CrossingJournal } from "../durable/crossing-journal.js";
import { hashInput } from "../durable/hash-input.js";
import { callIdAt } from "../durable/run-id.js";
import type { CrossingKind, JournaledAnswer } from "../durable/run-journal.js";
import { messageOf, ToolError } from "../errors.js";
import { exceedsJsonDepth } from "../json-limits.js";

/** What programs can ask about the catalog at run time (`tools.$search`, `tools.$describe`). */
export interface DiscoveryHandler {
  search(input: unknown): Promise<JsonValue> | JsonValue;
  describe(input: unknown): Promise<JsonValue> | JsonValue;
}

export interface ToolBridgeOptions {
  readonly programId: string;
  readonly pipeline: PipelineContext;
  readonly maxToolCalls: number;
  readonly maxArgumentBytes: number;
  readonly maxArgumentDepth: number;
  /** Bytes of arguments of calls still in flight the host may hold. */
  readonly maxPendingArgumentBytes: number;
  /**
   * Bytes of answers the host may hold for the guest once their crossing is over (calls that
   * finished while the program was busy, or faster than it takes them). A result past it is
   * dropped: the call fails RESULT_TOO_LARGE, its record says so. Counted in characters of the
   * answers' JSON, as `maxPendingArgumentBytes` counts arguments. Default: unlimited.
   */
  readonly maxPendingResultBytes?: number | undefined;
  /** Called once when the program exceeds `maxToolCalls`; the run should end. */
  readonly onCallLimit: () => void;
  readonly discovery?: DiscoveryHandler | undefined;
  /**
   * Answers for the run's own requests by path (`$timer`, `$budget`): not tool calls, so they
   * get no record and use none of `maxToolCalls`. Each takes the request's text (as the guest
   * sent it, unparsed) and gives the JSON text of its value, at once or later; it must not throw.
   */
  readonly runRequests?: ReadonlyMap<string, RunRequestHandler>;
  /**
   * A durable run's journal: crossings it holds are answered from it (the tools untouched),
   * later ones are appended as they are answered, each answer carries the run's clock, and every
   * call gets an idempotency key. Absent: a plain run.
   */
  readonly durable?: CrossingJournal | undefined;
}

/** One crossing as a durable run journals it: its arrival number, kind and requests. */
interface Crossing {
  readonly k: number;
  readonly kind: CrossingKind;
  readonly first?: number | undefined;
  readonly count?: number | undefined;
}

/** What a durable run remembers of a request until its answer is journaled. */
interface RequestKey {
  readonly tool: string;
  readonly hash: string;
  /** The call's position, 1-based; undefined for the run's own requests. */
  readonly n: number | undefined;
}

/** Answers one of the run's own requests; see `ToolBridgeOptions.runRequests`. */
export type RunRequestHandler = (text: string) => string | Promise<string>;

/** A call's place among the requests of the run (the wire's index) and among its calls. */
interface CallSlot {
  readonly index: number;
  readonly number: number;
}

/**
 * Crossings, and characters of their answers, one chunk of a replay carries into the isolate at
 * most (at least one crossing, however large): the guest holds one chunk at a time, inside its
 * memory limit, and hands its log over for checking at the end of each.
 */
const REPLAY_CHUNK_CROSSINGS = 4_096;
const REPLAY_CHUNK_CHARS = 1_048_576;

/** Codes the guest may give a call it refused; anything else is recorded as INPUT_INVALID. */
const GUEST_REFUSAL_CODES: ReadonlySet<string> = new Set<CallErrorCode>([
  "INPUT_INVALID",
  "ARGUMENT_TOO_LARGE",
  "TOOL_NOT_FOUND",
]);

/** Characters of a tool path kept in a record. */
const MAX_RECORDED_PATH_CHARS = 256;

/**
 * How long a plain run's lone call (a `mayWait` batch) holds its crossing for its answer, in ms.
 * A tool that answers within it costs one crossing and no wake-up of the isolate's thread pool;
 * a slower one is answered through `wait` once it is done, its latency unchanged. A program that
 * made the call without awaiting it is held up this long at most.
 */
export const LONE_CALL_HOLD_MS = 10;

/** The record of a call the run's end cancelled, as the bridge wrote it then. */
function cancelledAtEnd(id: string, tool: string, request: CallRequest): CallRecord {
  return {
    id,
    tool,
    caller: "program",
    status: "cancelled",
    code: "CANCELLED",
    durationMs: 0,
    bytesIn: request.kind === "call" ? request.argsJson.length : request.bytes,
    bytesOut: 0,
  };
}

/** Calls `release` after `ms`; returns the function that cancels it. */
function releaseAfter(ms: number, release: () => void): () => void {
  const timer = setTimeout(release, ms);
  return () => clearTimeout(timer);
}

/**
 * Calls `release` in the event loop's second check phase from now: the first may run before the
 * microtasks queued by the crossing (isolated-vm calls in without draining them); by the second
 * they have all run. Returns the function that cancels it.
 */
function releaseAfterTwoCheckPhases(release: () => void): () => void {
  let immediate = setImmediate(() => {
    immediate = setImmediate(release);
  });
  return () => clearImmediate(immediate);
}

/** Handles one run's calls; create one per run. */
export class ToolBridge {
  readonly #options: ToolBridgeOptions;
  readonly #records: (CallRecord | undefined)[] = [];
  #inFlight = 0;
  #pendingArgumentBytes = 0;
  #idle: (() => void) | undefined;
  #closed = false;
  #bytesIn = 0;
  /** Requests so far, the run's own included: the next one's index on the wire. */
  #sequence = 0;
  /** Tool calls so far, refused ones included: they number call ids and count to `maxToolCalls`. */
  #calls = 0;
  /** Answers of calls that finished after their batch was answered, for the next `wait`. */
  #ready: string[] = [];
  /**
   * Characters of answers made after their crossing and not yet handed to the guest: those in
   * `#ready` and those on their way there (counted when made, so answers that finish together
   * cannot each pass the budget).
   */
  #pendingAnswerChars = 0;
  /** Calls held back while the waiting answers fill their budget: each starts when called. */
  #paused: (() => void)[] = [];
  #waiter: ((answerText: string) => void) | undefined;
  #deliveryScheduled = false;
  // ---- durable runs only ----
  readonly #durable: CrossingJournal | undefined;
  /** Crossings arrived so far (submits and waits): the next one's number. */
  #crossings = 0;
  /** The crossing the outstanding `wait` is. */
  #waiterCrossing = 0;
  /** True while journaled crossings remain to be answered from the journal. */
  #replaying = false;
  #diverged = false;
  /**
   * The guest answers the replay from chunks and sends its log (`replayChunk`): waits get a tick,
   * logs are checked here. Off once the journal is used up or the replay has diverged.
   */
  #guestReplay = false;
  /** While a replay log is checked: the journal ran out, and the log must end there. */
  #checkingLog = false;
  #exhausted = false;
  /**
   * Crossings of the last chunk sent to the guest that the host has not passed yet. The host answers
   * no crossing past the chunk: a wait of the replay whose answer lies past it is still held in the
   * guest, which takes that answer from the next chunk, so the next chunk must start with it.
   */
  #chunkLeft = 0;
  /** The crossing number the guest's next `wait` takes: a wait of the replay the journal had not answered. */
  #adoptedWait: number | undefined;
  /** Crossings that arrived during the replay and wait for their journaled turn. */
  readonly #held = new Map<number, Crossing & { readonly answer: (text: string) => void }>();
  /** Requests the journal has no answer for (in flight at the crash): started when the replay is over. */
  #deferred: { readonly request: CallRequest; readonly slot: CallSlot }[] = [];
  /** Tool and input hash of each request whose answer is not journaled yet, by wire index. */
  readonly #keys = new Map<number, RequestKey>();

  constructor(options: ToolBridgeOptions) {
    this.#options = options;
    this.#durable = options.durable;
    this.#replaying = options.durable?.next() !== undefined;
    options.durable?.watchUnanswered(() => this.#inFlight + this.#ready.length);
  }

  /**
   * A resumed durable run's first chunk of journaled crossings (JSON, see `encodeReplayEntry`) for
   * the guest's config, or undefined when there is nothing to replay. From this call on the guest
   * answers the replay itself and hands its log over; every crossing of it is checked here (tool,
   * input hash, order) before any live call runs, exactly as a crossing sent to the host would be.
   */
  replayChunk(): string | undefined {
    if (this.#durable === undefined || !this.#replaying || this.#diverged) return undefined;
    this.#guestReplay = true;
    return this.#chunk();
  }

  /** Whether a durable run is still answering from its journal (false for a plain run). */
  get replaying(): boolean {
    return this.#replaying && !this.#diverged;
  }

  /** One record per call made, in call order. */
  get records(): CallRecord[] {
    return this.#records.filter((record): record is CallRecord => record !== undefined);
  }

  /** Calls the program has made so far, refused ones included (the run's own requests are not calls). */
  get callsMade(): number {
    return this.#calls;
  }

  /** Bytes of results handed into the sandbox. */
  get bytesIn(): number {
    return this.#bytesIn;
  }

  /** Refuses every later call with `RUN_FINISHED` and answers an outstanding `wait` with nothing. */
  close(): void {
    this.#closed = true;
    const ready = this.#ready;
    this.#ready = [];
    this.#handedOver(ready);
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.(encodeCallAnswers([]));
  }

  /** Resolves when every call that entered the pipeline has its record. */
  settled(): Promise<void> {
    if (this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => (this.#idle = resolve));
  }

  /**
   * The guest's crossing: starts every call of an encoded batch in order and answers at once
   * with every answer ready (those of this batch that did not wait, and earlier ones that
   * finished since). A batch that may wait is held a short while for its one call's answer
   * (`#holdBriefly`); the answers of a batch sent ahead are kept for the next crossing, which
   * answers them. A durable run's crossing is replayed while the journal has it, else journaled.
   */
  submit = (batchText: unknown): string | Promise<string> => {
    const durable = this.#durable;
    if (durable !== undefined && isReplayLog(batchText)) return this.#checkReplayLog(batchText);
    // A durable run numbers its crossings as its journal does; a plain run's need no number.
    const k = durable === undefined ? undefined : this.#crossings++;
    const batch = decodeCallBatch(batchText);
    if (batch === undefined) {
      if (k !== undefined && this.#replaying) return this.#divergeWith(k, "a batch the host could not read", undefined);
      // Only a damaged guest runtime sends this; it still leaves a record.
      const slot = this.#nextSlot();
      if (k !== undefined) this.#keys.set(slot.index, { tool: "", hash: "", n: slot.number + 1 });
      const refused = this.#refuse(slot, "", "INPUT_INVALID", "Malformed call batch.");
      return this.#answerNow([refused], k === undefined ? undefined : { k, kind: "now" });
    }
    const crossing: Crossing | undefined =
      k === undefined ? undefined : { k, kind: batch.answer, first: this.#sequence, count: batch.requests.length };
    if (crossing !== undefined && this.#replaying) return this.#replaySubmit(crossing, batch.requests);
    const later = batch.answer === "later";
    const answers: string[] = [];
    let waiting: Promise<string> | undefined;
    for (const request of batch.requests) {
      if (durable !== undefined) this.#keys.set(this.#sequence, this.#keyOf(request));
      const answer = this.#start(request);
      if (typeof answer !== "string") {
        if (batch.answer === "mayWait" && batch.requests.length === 1) waiting = answer;
        else void answer.then(this.#finishedLater);
      } else if (later) this.#finishedLater(answer);
      else answers.push(answer);
    }
    if (later) return crossing === undefined ? encodeCallAnswers([]) : this.#reply(crossing, []);
    return waiting === undefined ? this.#answerNow(answers, crossing) : this.#holdBriefly(waiting, crossing);
  };

  /** Resolves with the answers of calls that finished since the last answer, as soon as there is one. */
  wait = (): Promise<string> => {
    if (this.#closed) return Promise.resolve(encodeCallAnswers([]));
    // The guest's replay asks only for the turn of a task; its waits cross in its log.
    if (this.#guestReplay) return Promise.resolve(REPLAY_TICK);
    const adopted = this.#adoptedWait;
    this.#adoptedWait = undefined;
    const k = adopted ?? this.#crossings++;
    if (this.#replaying) return this.#arriveInReplay({ k, kind: "wait" }) as Promise<string>;
    // One wait is outstanding at a time; a second one takes over, the first gets nothing.
    const displaced = this.#waiter;
    if (displaced !== undefined) {
      displaced(
        this.#durable === undefined
          ? encodeCallAnswers([])
          : this.#reply({ k: this.#waiterCrossing, kind: "wait" }, []),
      );
    }
    return new Promise((resolve) => {
      this.#waiter = resolve;
      this.#waiterCrossing = k;
      if (this.#ready.length > 0) this.#scheduleDelivery();
    });
  };

  /**
   * One call: a call envelope, synchronously when the pipeline answered without waiting, else a
   * promise of one. Never throws or rejects.
   */
  handle = (path: unknown, argsJson: unknown): string | Promise<string> => this.#handleIn(undefined, path, argsJson);

  /** `handle`, in `slot` when the replay of a durable run took it already. */
  #handleIn(given: CallSlot | undefined, path: unknown, argsJson: unknown): string | Promise<string> {
    const runRequest = typeof path === "string" ? this.#options.runRequests?.get(path) : undefined;
    if (runRequest !== undefined) return this.#answerRunRequest(given?.index ?? this.#sequence++, runRequest, argsJson);
    const slot = given ?? this.#nextSlot();
    const { index } = slot;
    const refused = this.#admit(slot, path);
    if (refused !== undefined) return refused;
    const tool = path as string;
    if (typeof argsJson !== "string") return this.#refuse(slot, tool, "INPUT_INVALID", "Malformed tool call.");
    // Checked before parsing: a hostile program controls both the size and the nesting.
    if (argsJson.length > this.#options.maxArgumentBytes) {
      return this.#refuse(
        slot,
        tool,
        "ARGUMENT_TOO_LARGE",
        `The arguments are larger than ${this.#options.maxArgumentBytes} bytes.`,
        argsJson.length,
      );
    }
    if (exceedsJsonDepth(argsJson, this.#options.maxArgumentDepth)) {
      return this.#refuse(
        slot,
        tool,
        "ARGUMENT_TOO_LARGE",
        `The arguments are nested deeper than ${this.#options.maxArgumentDepth} levels.`,
        argsJson.length,
      );
    }
    if (this.#pendingArgumentBytes + argsJson.length > this.#options.maxPendingArgumentBytes) {
      return this.#refuse(
        slot,
        tool,
        "ARGUMENT_TOO_LARGE",
        `Calls still in flight hold ${this.#pendingArgumentBytes} bytes of arguments; the limit is ${this.#options.maxPendingArgumentBytes}. Wait for some to finish (bound the parallelism).`,
        argsJson.length,
      );
    }
    let input: unknown;
    try {
      // A reviver makes parsing several times slower: use it only when the key can be there.
      input = argsJson.includes("__proto__") ? JSON.parse(argsJson, dropProtoKeys) : JSON.parse(argsJson);
    } catch {
      return this.#refuse(slot, tool, "INPUT_INVALID", "The arguments are not valid JSON.", argsJson.length);
    }
    const callId = this.#callId(slot);
    if (tool === SEARCH_PATH || tool === DESCRIBE_PATH)
      return this.#track(this.#discover(index, callId, tool, input, argsJson.length).then((text) => this.#late(text)));
    const call: ToolCall = {
      id: callId,
      tool,
      input,
      caller: "program",
      programId: this.#options.programId,
      idempotencyKey: this.#durable === undefined ? undefined : `${this.#durable.runId}:${slot.number + 1}`,
    };
    this.#durable?.callMade(callId, slot.number + 1, tool);
    if (this.#resultsFull) {
      // Backpressure: while the answers waiting for the guest fill their budget, a call is not
      // started (its arguments count as in flight); it starts once the guest has taken answers.
      return this.#holdArguments(
        argsJson.length,
        new Promise<void>((start) => this.#paused.push(start)).then(() => this.#runLate(index, call, argsJson.length)),
      );
    }
    let result: PipelineResult | Promise<PipelineResult>;
    try {
      result = runToolCall(call, this.#options.pipeline, { inputBytes: argsJson.length });
    } catch (error) {
      return this.#internalFailure(index, call, error);
    }
    if (!(result instanceof Promise)) return this.#deliver(index, result);
    return this.#holdArguments(argsJson.length, this.#settleLate(index, call, result));
  }

  /** Whether the answers waiting for the guest have reached `maxPendingResultBytes`. */
  get #resultsFull(): boolean {
    const budget = this.#options.maxPendingResultBytes;
    return budget !== undefined && this.#pendingAnswerChars >= budget;
  }

  /** Tracks `answer`, counting `bytes` of arguments as in flight until it settles. */
  #holdArguments(bytes: number, answer: Promise<string>): Promise<string> {
    this.#pendingArgumentBytes += bytes;
    return this.#track(answer, bytes);
  }

  /** Runs a call whose start was held back, answering late. */
  #runLate(index: number, call: ToolCall, inputBytes: number): Promise<string> | string {
    let result: PipelineResult | Promise<PipelineResult>;
    try {
      result = runToolCall(call, this.#options.pipeline, { inputBytes });
    } catch (error) {
      return this.#late(this.#internalFailure(index, call, error));
    }
    return result instanceof Promise ? this.#settleLate(index, call, result) : this.#deliverLate(index, result);
  }

  #settleLate(index: number, call: ToolCall, result: Promise<PipelineResult>): Promise<string> {
    return result.then(
      (done) => this.#deliverLate(index, done),
      (error: unknown) => this.#late(this.#internalFailure(index, call, error)),
    );
  }

  #start(request: CallRequest, given?: CallSlot): string | Promise<string> {
    if (request.kind === "call") return this.#handleIn(given, request.path, request.argsJson);
    // Refused inside the sandbox before its arguments crossed: it is still a call of the run.
    const slot = given ?? this.#nextSlot();
    const refused = this.#admit(slot, request.path);
    if (refused !== undefined) return refused;
    const code = GUEST_REFUSAL_CODES.has(request.code) ? (request.code as CallErrorCode) : "INPUT_INVALID";
    const message = request.reason === "" ? "The call was refused inside the sandbox." : request.reason;
    return this.#refuse(slot, request.path, code, message, Math.max(0, Math.floor(request.bytes)));
  }

  #nextSlot(): CallSlot {
    return { index: this.#sequence++, number: this.#calls++ };
  }

  /** One of the run's own requests: answered by its handler, at once or later, with the request's index. */
  #answerRunRequest(index: number, answer: RunRequestHandler, text: unknown): string | Promise<string> {
    if (this.#closed) return encodeCallFailure(index, null, "RUN_FINISHED", "The program has already finished.");
    const json = answer(typeof text === "string" ? text : "");
    return typeof json === "string"
      ? encodeCallSuccess(index, json)
      : json.then((value) => this.#late(encodeCallSuccess(index, value)));
  }

  /** The refusals every call can get before its arguments are looked at, or undefined. */
  #admit(slot: CallSlot, path: unknown): string | undefined {
    if (this.#closed)
      return this.#refuse(slot, path, "RUN_FINISHED", "The program has already finished; this call was not made.");
    // A call made between the journal's refusal and the isolate's end would act unjournaled.
    if (this.#durable?.journalStopped === true)
      return this.#refuse(
        slot,
        path,
        "RUN_FINISHED",
        "The run stopped: its journal takes nothing more; this call was not made.",
      );
    if (slot.number >= this.#options.maxToolCalls) {
      if (slot.number === this.#options.maxToolCalls) this.#options.onCallLimit();
      return this.#refuse(
        slot,
        path,
        "TOOL_CALL_LIMIT",
        `The program made more than ${this.#options.maxToolCalls} tool calls.`,
      );
    }
    if (typeof path !== "string") return this.#refuse(slot, "", "INPUT_INVALID", "Malformed tool call.");
    // The guest refuses such paths itself; this holds if it did not.
    if (path.length > MAX_TOOL_PATH_CHARS)
      return this.#refuse(slot, path, "TOOL_NOT_FOUND", `No tool has a name of ${path.length} characters.`);
    return undefined;
  }

  #callId(slot: CallSlot): string {
    // A durable run's call ids are the same in every process that runs it.
    return callIdAt(this.#durable?.runId ?? this.#options.programId, slot.number + 1);
  }

  /** A call refused by the bridge: its record and trace events, as the pipeline gives every call. */
  #refuse(slot: CallSlot, path: unknown, code: CallErrorCode, message: string, bytesIn = 0): string {
    const { index } = slot;
    const call = this.#callOf(slot, path);
    const { outcome, record } = startCallRecord(
      call,
      this.#options.pipeline.trace,
      bytesIn,
    )(failedOutcome(call, code, message));
    this.#records[index] = record;
    return encodeCallFailure(index, call.id, code, outcome.status === "ok" ? message : outcome.error.message);
  }

  #callOf(slot: CallSlot, path: unknown): ToolCall {
    return {
      id: this.#callId(slot),
      tool: typeof path === "string" ? path.slice(0, MAX_RECORDED_PATH_CHARS) : "",
      input: undefined,
      caller: "program",
      programId: this.#options.programId,
    };
  }

  #answerNow(answers: string[], crossing?: Crossing): string {
    let envelopes = answers;
    if (this.#ready.length > 0) {
      const ready = this.#ready;
      this.#ready = [];
      this.#handedOver(ready);
      envelopes = [...ready, ...answers];
    }
    return this.#durable === undefined || crossing === undefined
      ? encodeCallAnswers(envelopes)
      : this.#reply(crossing, envelopes);
  }

  /** Counts an answer made after its crossing (see `#pendingAnswerChars`); returns it. */
  #late(answerText: string): string {
    this.#pendingAnswerChars += answerText.length;
    return answerText;
  }

  /** Uncounts answers handed to the guest (or dropped); below the budget, held calls start. */
  #handedOver(answerTexts: readonly string[]): void {
    for (const text of answerTexts) this.#pendingAnswerChars -= text.length;
    if (this.#paused.length === 0 || (this.#resultsFull && !this.#closed)) return;
    const paused = this.#paused;
    this.#paused = [];
    // Started, closed or not: after close, the run's signal is aborted and each ends CANCELLED with its record.
    for (const start of paused) start();
  }

  /**
   * Holds a crossing for its one call's answer: in a plain run up to LONE_CALL_HOLD_MS, in a
   * durable run until the event loop's second check phase (after the microtasks of an async tool
   * that did not wait on anything), as its journaled crossings were made. An answer that comes
   * later goes through `wait`. The guest's thread sleeps meanwhile, costing no CPU; the hold is
   * bounded because the program may not be waiting for the call (it made it and went on).
   */
  #holdBriefly(answer: Promise<string>, crossing?: Crossing): Promise<string> {
    return new Promise((resolve) => {
      let held = true;
      const release = (): void => {
        held = false;
        resolve(this.#answerNow([], crossing));
      };
      const stopHolding =
        this.#durable === undefined ? releaseAfter(LONE_CALL_HOLD_MS, release) : releaseAfterTwoCheckPhases(release);
      void answer.then((text) => {
        if (!held) return this.#finishedLater(text);
        held = false;
        stopHolding();
        this.#handedOver([text]);
        resolve(this.#answerNow([text], crossing));
      });
    });
  }

  readonly #finishedLater = (answerText: string): void => {
    if (this.#closed) {
      this.#handedOver([answerText]);
      return;
    }
    this.#ready.push(answerText);
    this.#scheduleDelivery();
  };

  #scheduleDelivery(): void {
    if (this.#deliveryScheduled || this.#waiter === undefined) return;
    this.#deliveryScheduled = true;
    // After the current phase of the event loop, so calls that finish together (timers due at
    // once, I/O read in one poll) cross back together.
    setImmediate(() => {
      this.#deliveryScheduled = false;
      this.#deliverReady();
    });
  }

  /** Hands the answers ready to the outstanding wait, if there are both. */
  #deliverReady(): void {
    const waiter = this.#waiter;
    if (waiter === undefined || this.#ready.length === 0) return;
    this.#waiter = undefined;
    waiter(this.#answerNow([], { k: this.#waiterCrossing, kind: "wait" }));
  }

  /**
   * `#deliver` for a call that finished after its crossing: its answer waits for the guest, so a
   * result that would take the waiting answers past `maxPendingResultBytes` is dropped.
   */
  #deliverLate(index: number, done: PipelineResult): string {
    const budget = this.#options.maxPendingResultBytes;
    const size = done.outcome.status === "ok" ? (done.json ?? "null").length : 0;
    if (budget !== undefined && size > 0 && this.#pendingAnswerChars + size > budget) {
      const { record } = done;
      this.#records[index] = { ...record, status: "error", code: "RESULT_TOO_LARGE", bytesOut: 0 };
      const message =
        `The call succeeded, but its ${size}-byte result was dropped: results waiting for the program already ` +
        `hold ${this.#pendingAnswerChars} bytes and the limit is ${budget} (maxPendingResultBytes). Await results ` +
        "as they come (bound the parallelism) rather than starting many large calls while the program is busy.";
      return this.#late(encodeCallFailure(index, record.id, "RESULT_TOO_LARGE", message));
    }
    return this.#late(this.#deliver(index, done));
  }

  #deliver(index: number, { outcome, json, record }: PipelineResult): string {
    this.#records[index] = record;
    if (outcome.status === "ok") {
      this.#bytesIn += record.bytesOut;
      return encodeCallSuccess(index, json ?? "null");
    }
    return encodeCallFailure(index, record.id, outcome.error.code, outcome.error.message, outcome.error.details);
  }

  // A bug in the host, not in the program: the call still gets its one record and answer.
  #internalFailure(index: number, call: ToolCall, error: unknown): string {
    this.#records[index] = {
      id: call.id,
      tool: call.tool,
      caller: "program",
      status: "error",
      code: "TOOL_ERROR",
      durationMs: 0,
      bytesIn: 0,
      bytesOut: 0,
    };
    return encodeCallFailure(index, call.id, "TOOL_ERROR", `Internal error in the host pipeline: ${messageOf(error)}`);
  }

  /**
   * Counts `running` in flight (and `argumentBytes` of arguments held for it) until it settles. One
   * `then` with both arms, not two `finally`s: every slow call passes here, and each `finally` costs
   * promises and turns of its own. `answer` never rejects (it ends in an envelope); a bug that makes
   * it reject still uncounts it and passes the rejection on.
   */
  #track(running: Promise<string>, argumentBytes = 0): Promise<string> {
    this.#inFlight++;
    const settle = (): void => {
      this.#pendingArgumentBytes -= argumentBytes;
      if (--this.#inFlight === 0) this.#idle?.();
    };
    return running.then(
      (answer) => {
        settle();
        return answer;
      },
      (error: unknown) => {
        settle();
        throw error;
      },
    );
  }

  // ---- durable runs: journal live crossings, replay journaled ones ----

  #isRunRequest(path: string): boolean {
    return this.#options.runRequests?.has(path) === true;
  }

  /** Tool and input hash of a request; `n` its position (the next call's by default; undefined for the run's own). */
  #keyOf(
    request: CallRequest,
    n: number | undefined = this.#isRunRequest(request.path) ? undefined : this.#calls + 1,
  ): RequestKey {
    const text = request.kind === "call" ? request.argsJson : `refused\0${request.code}\0${request.reason}`;
    return { tool: request.path, hash: hashInput(text), n };
  }

  /** Journals a crossing's answer (unless the run is over) and returns it with the run's clock first. */
  #reply(crossing: Crossing, envelopes: readonly string[]): string {
    const nowMs = Date.now();
    if (!this.#closed && !this.#diverged) {
      const answers: JournaledAnswer[] = [];
      for (const envelope of envelopes) answers.push(this.#journaled(envelope));
      this.#durable?.record({ t: "x", ...crossing, nowMs, answers });
    }
    // Answers the journal did not take never reach the program: a resume makes those calls again.
    if (crossing.kind === "later" || this.#durable?.journalStopped === true) return encodeCallAnswers([]);
    return encodeCallAnswers([encodeClockPair(nowMs), ...envelopes]);
  }

  #journaled(envelope: string): JournaledAnswer {
    // An envelope starts with its tag: the index, or -1 - index for a failure.
    const tag = Number.parseInt(envelope, 10);
    const index = tag >= 0 ? tag : -1 - tag;
    const key = this.#keys.get(index);
    this.#keys.delete(index);
    const ref = this.#durable?.spill(index, envelope);
    return {
      i: index,
      n: key?.n,
      tool: key?.tool ?? "",
      h: key?.hash ?? "",
      e: ref === undefined ? envelope : undefined,
      ref,
      r: this.#records[index],
    };
  }

  /**
   * A replay log: each crossing the guest answered from its chunk, checked in arrival order as if
   * it had crossed (its answer, the journal's, is dropped: the guest has it). Answers the next
   * chunk, REPLAY_LIVE when the journal is used up (the run goes live), or REPLAY_OVER when the
   * replay diverged (the run ends). A log that goes past the journal diverges before anything live
   * starts; a log sent when the guest is not replaying changes nothing.
   */
  #checkReplayLog(text: string): string {
    if (!this.#guestReplay) return this.#diverged || this.#closed || this.#replaying ? REPLAY_OVER : REPLAY_LIVE;
    const log = decodeReplayLog(text);
    if (log === undefined) {
      this.#divergeWith(this.#crossings, "a replay log the host could not read", undefined);
      return this.#endGuestReplay(REPLAY_OVER);
    }
    this.#checkingLog = true;
    try {
      // The guest has the last chunk now: a wait held at its start was answered there.
      if (this.#held.size > 0) this.#pump();
      const { crossings } = log;
      for (let at = 0; at < crossings.length; at++) {
        const crossing = crossings[at]!;
        if (this.#diverged) break;
        // Past the journal's end, the guest answers nothing; its last wait waits for live answers.
        if (this.#exhausted && !(crossing === "" && at === crossings.length - 1)) {
          this.#divergeWith(this.#crossings, "a crossing after the journal's last", "no more crossings");
          break;
        }
        if (crossing === "") this.#arriveInReplay({ k: this.#crossings++, kind: "wait" });
        else this.#replayLogged(crossing);
      }
    } finally {
      this.#checkingLog = false;
    }
    if (!this.#diverged && log.flag === "unanswerable") {
      this.#divergeWith(this.#crossings - 1, "a crossing its replay could not answer", this.#describeNext());
    }
    if (!this.#diverged && log.flag === "idle" && !this.#exhausted) {
      // Every turn of the program has run, waiting for answers; the journal answers other crossings first.
      this.#divergeWith(this.#crossings, "nothing more while it waits for answers", this.#describeNext());
    }
    if (this.#diverged) return this.#endGuestReplay(REPLAY_OVER);
    if (this.#exhausted) {
      this.#exhausted = false;
      this.#goLive();
    }
    if (!this.#replaying) return this.#endGuestReplay(REPLAY_LIVE);
    return `${REPLAY_MORE}${this.#chunk()}`;
  }

  #endGuestReplay(answer: string): string {
    this.#guestReplay = false;
    return answer;
  }

  /** The journal's next crossing, as a divergence names it. */
  #describeNext(): string {
    const line = this.#durable!.next();
    if (line === undefined) return "no more crossings";
    if (line.kind === "wait") return `the answers of wait ${line.k + 1}`;
    return `a ${line.kind} crossing of ${line.count ?? 0} request(s) from index ${line.first ?? 0}`;
  }

  /** The journal's next crossings, from the cursor, as a chunk (see REPLAY_CHUNK_CROSSINGS). */
  #chunk(): string {
    const durable = this.#durable!;
    let text = "[";
    this.#chunkLeft = 0;
    for (let ahead = 0; ahead < REPLAY_CHUNK_CROSSINGS; ahead++) {
      const line = durable.peek(ahead);
      if (line === undefined) break;
      const envelopes = line.kind === "later" ? [] : line.answers.map((journaled) => journaled.e ?? "");
      const mark = line.kind === "wait" ? REPLAY_WAIT_MARK : replayMarkOf(line.kind);
      const entry = encodeReplayEntry(line.k, mark, line.first ?? -1, line.count ?? -1, line.nowMs, envelopes);
      if (ahead > 0 && text.length + entry.length > REPLAY_CHUNK_CHARS) break;
      text += ahead === 0 ? entry : `,${entry}`;
      this.#chunkLeft++;
    }
    return `${text}]`;
  }

  /** A submit the journal may hold: each request checked against its journaled answer, none started. */
  #replaySubmit(crossing: Crossing, requests: readonly CallRequest[]): string | Promise<string> {
    if (!this.#checkReplayed(crossing, requests)) return encodeCallAnswers([]);
    return this.#arriveInReplay(crossing);
  }

  /** A crossing of a replay log (the guest answered it from its chunk): checked, recorded, its place taken. */
  #replayLogged(text: string): void {
    const k = this.#crossings++;
    const batch = decodeCallBatch(text);
    if (batch === undefined) {
      this.#divergeWith(k, "a batch the host could not read", undefined);
      return;
    }
    const crossing: Crossing = { k, kind: batch.answer, first: this.#sequence, count: batch.requests.length };
    if (!this.#checkReplayed(crossing, batch.requests)) return;
    const durable = this.#durable!;
    // Most crossings are the journal's next with nothing held: their turn is now.
    if (this.#held.size === 0 && durable.next()?.k === k) {
      this.#advance();
      this.#pump();
      return;
    }
    this.#arriveInReplay(crossing);
  }

  /**
   * Checks a crossing of the replay against the journal: its kind and requests, then each request's
   * tool and input hash against its journaled answer, whose record it takes (marked replayed). A
   * request the journal has no answer for (in flight at the crash) is made live once the replay is
   * over. False when it diverged (the run ends REPLAY_DIVERGED with both sides).
   */
  #checkReplayed(crossing: Crossing, requests: readonly CallRequest[]): boolean {
    const durable = this.#durable!;
    const entry = durable.crossing(crossing.k);
    if (
      entry !== undefined &&
      (entry.kind !== crossing.kind || entry.first !== crossing.first || entry.count !== crossing.count)
    ) {
      const journaled = `a ${entry.kind} crossing of ${entry.count ?? 0} request(s) from index ${entry.first ?? 0}`;
      const made = `a ${crossing.kind} crossing of ${crossing.count ?? 0} request(s) from index ${crossing.first ?? 0}`;
      this.#divergeWith(crossing.k, made, journaled);
      return false;
    }
    for (const request of requests) {
      const isRun = this.#isRunRequest(request.path);
      const slot = isRun ? { index: this.#sequence++, number: -1 } : this.#nextSlot();
      const journaled = durable.answer(slot.index);
      // The run's own requests ($timer, $budget) are checked by path: their input is the run's.
      const key = isRun ? { tool: request.path, hash: "", n: undefined } : this.#keyOf(request, slot.number + 1);
      if (journaled === undefined && durable.completed) {
        // In flight when the program ended, cancelled with its run: never answered, never made again.
        if (!isRun) this.#markReplayed(slot, cancelledAtEnd(this.#callId(slot), key.tool, request));
        continue;
      }
      if (journaled === undefined) {
        // In flight when the journal ended: made again, live, once the replay is over.
        this.#keys.set(slot.index, isRun ? this.#keyOf(request, undefined) : key);
        this.#deferred.push({ request, slot });
        continue;
      }
      if (journaled.tool !== key.tool || (!isRun && journaled.h !== key.hash)) {
        this.#divergeWith(
          crossing.k,
          `tools.${key.tool} with input ${key.hash}`,
          `tools.${journaled.tool} with input ${journaled.h}`,
          key.n,
        );
        return false;
      }
      if (!isRun) this.#replayRecord(slot, journaled);
    }
    return true;
  }

  /** A replayed call's record, as journaled and marked `replayed`, with its trace events. */
  #replayRecord(slot: CallSlot, journaled: JournaledAnswer): void {
    this.#markReplayed(
      slot,
      journaled.r ?? {
        id: this.#callId(slot),
        tool: journaled.tool,
        caller: "program",
        status: "ok",
        durationMs: 0,
        bytesIn: 0,
        bytesOut: 0,
      },
    );
  }

  /** `record` as the call's, marked `replayed`, with its trace events. */
  #markReplayed(slot: CallSlot, record: CallRecord & { replayed?: boolean }): void {
    // The journal's record was parsed for this run alone: it is marked in place, not copied (a
    // spread per replayed call was a third of the host's check of a replay log).
    record.replayed = true;
    const { id } = record;
    this.#records[slot.index] = record;
    if (record.status === "ok") this.#bytesIn += record.bytesOut;
    const { trace } = this.#options.pipeline;
    if (!trace.active) return;
    const at = Date.now();
    const { programId } = this.#options;
    trace.emit({ type: "tool-call-start", callId: id, tool: record.tool, caller: "program", programId, queuedAt: at });
    trace.emit({
      type: "tool-call-end",
      callId: id,
      tool: record.tool,
      caller: "program",
      programId,
      queuedAt: at,
      startedAt: undefined,
      endedAt: at,
      status: record.status,
      code: record.code,
      bytesIn: record.bytesIn,
      bytesOut: record.bytesOut,
      replayed: true,
    });
  }

  /**
   * A crossing of the replay waits for its turn: answers reach the program in the journaled
   * order, so a `wait` is held until the crossings answered before it in the first run are.
   */
  #arriveInReplay(crossing: Crossing): string | Promise<string> {
    let answered: string | undefined;
    let settle: ((text: string) => void) | undefined;
    const answer = (text: string): void => {
      if (settle === undefined) answered = text;
      else settle(text);
    };
    this.#held.set(crossing.k, { ...crossing, answer });
    this.#pump();
    if (answered !== undefined) return crossing.kind === "wait" ? Promise.resolve(answered) : answered;
    // Nobody reads the answer of a batch sent ahead; its turn in the journal still comes.
    if (crossing.kind === "later") return encodeCallAnswers([]);
    if (crossing.kind !== "wait" && this.#replaying && !this.#diverged) {
      // The program waits on this crossing, so the crossings the journal answers first never come.
      return this.#divergeWith(crossing.k, `a ${crossing.kind} crossing the journal does not hold`, "more crossings");
    }
    if (this.#diverged)
      return crossing.kind === "wait" ? Promise.resolve(encodeCallAnswers([])) : encodeCallAnswers([]);
    return new Promise((resolve) => (settle = resolve));
  }

  /** Answers held crossings in the journal's order; when the journal is used up, goes live. */
  #pump(): void {
    const durable = this.#durable!;
    while (this.#replaying && !this.#diverged) {
      const line = durable.next();
      if (line === undefined) {
        // Within a replay log, the log must end here too: live only once it is checked whole.
        if (this.#checkingLog) this.#exhausted = true;
        else this.#goLive();
        return;
      }
      const held = this.#held.get(line.k);
      if (held === undefined) return;
      // Past the chunk the guest holds, its wait is not answered yet: it is, from the next chunk.
      if (this.#guestReplay && this.#chunkLeft === 0) return;
      if ((held.kind === "wait") !== (line.kind === "wait")) {
        // A wait where the journal holds a batch (or the reverse): the batch's calls would go unchecked.
        const made = held.kind === "wait" ? "a wait for answers" : `a ${held.kind} crossing`;
        this.#divergeWith(line.k, made, line.kind === "wait" ? "a wait for answers" : `a ${line.kind} crossing`);
        return;
      }
      this.#held.delete(line.k);
      this.#advance();
      const envelopes = line.answers.map((journaled) => journaled.e ?? "");
      held.answer(encodeCallAnswers(line.kind === "later" ? [] : [encodeClockPair(line.nowMs), ...envelopes]));
    }
  }

  /** Marks the journal's next crossing answered, in the guest's chunk too. */
  #advance(): void {
    this.#durable!.advance();
    if (this.#chunkLeft > 0) this.#chunkLeft--;
  }

  /** The journal is used up: calls it had no answer for start now, and held crossings are answered live. */
  #goLive(): void {
    this.#replaying = false;
    // Calls answered from the journal: their records are marked `replayed`.
    this.#durable!.goneLive(
      this.#records.reduce((count, record) => (record?.replayed === true ? count + 1 : count), 0),
    );
    const held = [...this.#held.values()];
    this.#held.clear();
    for (const crossing of held) {
      if (crossing.kind !== "wait") continue;
      // The guest's wait of the replay: its next real `wait` is this crossing.
      if (this.#guestReplay) {
        this.#adoptedWait = crossing.k;
        continue;
      }
      this.#waiter = crossing.answer;
      this.#waiterCrossing = crossing.k;
    }
    const deferred = this.#deferred;
    this.#deferred = [];
    for (const { request, slot } of deferred) {
      const answer = this.#start(request, slot);
      if (typeof answer === "string") this.#finishedLater(answer);
      else void answer.then(this.#finishedLater);
    }
    for (const crossing of held) {
      if (crossing.kind === "later") this.#reply(crossing, []);
      else if (crossing.kind !== "wait") crossing.answer(this.#answerNow([], crossing));
    }
  }

  /** Ends a replay that no longer matches its journal; nothing more is journaled. */
  #divergeWith(k: number, program: string, journal: string | undefined, position?: number): string {
    this.#diverged = true;
    const durable = this.#durable!;
    const where = position === undefined ? `crossing ${k + 1}` : `call ${position}`;
    durable.diverge({
      code: "REPLAY_DIVERGED",
      message:
        `The program no longer matches the journal of run ${durable.runId} at ${where}: the program made ${program}` +
        `${journal === undefined ? "" : `, the journal holds ${journal}`}. The journal is unchanged; ` +
        "resume it with the program it was started with, or start a new run id.",
      details: { crossing: k + 1, position: position ?? null, program, journal: journal ?? null },
    });
    return encodeCallAnswers([]);
  }

  /** `$search` and `$describe`: answered by the discovery handler, recorded and traced like any call. */
  async #discover(index: number, callId: string, path: string, input: unknown, bytesIn: number): Promise<string> {
    const call: ToolCall = { id: callId, tool: path, input, caller: "program", programId: this.#options.programId };
    const finish = startCallRecord(call, this.#options.pipeline.trace, bytesIn);
    const startedAt = Date.now();
    const discovery = this.#options.discovery;
    const fail = (code: CallErrorCode | ToolDefinedCode, message: string): string => {
      const { outcome, record } = finish(failedOutcome(call, code, message), undefined, startedAt);
      this.#records[index] = record;
      return encodeCallFailure(index, callId, code, outcome.status === "ok" ? message : outcome.error.message);
    };
    if (discovery === undefined) return fail("TOOL_NOT_FOUND", "Tool search is not enabled for this run.");
    try {
      const value = await (path === SEARCH_PATH ? discovery.search(input) : discovery.describe(input));
      const json = JSON.stringify(value);
      const { record } = finish({ callId, tool: path, status: "ok", value }, json, startedAt);
      this.#records[index] = record;
      this.#bytesIn += record.bytesOut;
      return encodeCallSuccess(index, json);
    } catch (error) {
      // The handler refuses with the code a model would get from search_tools or describe_tools.
      return fail(ToolError.isInstance(error) ? error.code : "INPUT_INVALID", messageOf(error));
    }
  }
}

/** `JSON.parse` reviver: a `__proto__` key is dropped, so parsed input can never carry one. */
function dropProtoKeys(key: string, value: unknown): unknown {
  return key === "__proto__" ? undefined : value;
}
