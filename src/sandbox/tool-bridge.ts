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
  MAX_TOOL_PATH_CHARS,
  SEARCH_PATH,
} from "../../runtime/wire.js";
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
}

/** Answers one of the run's own requests; see `ToolBridgeOptions.runRequests`. */
export type RunRequestHandler = (text: string) => string | Promise<string>;

/** A call's place among the requests of the run (the wire's index) and among its calls. */
interface CallSlot {
  readonly index: number;
  readonly number: number;
}

/**
 * How long, in ms, a batch that may wait (one call, nothing else in flight) holds its crossing
 * for the call's answer. Most calls a program awaits one by one answer within it, in one
 * crossing instead of two; a slower call is answered through `wait`, so a call the program
 * never awaits delays it by this much at most.
 */
export const BLOCKING_GRACE_MS = 2;

/** Codes the guest may give a call it refused; anything else is recorded as INPUT_INVALID. */
const GUEST_REFUSAL_CODES: ReadonlySet<string> = new Set<CallErrorCode>([
  "INPUT_INVALID",
  "ARGUMENT_TOO_LARGE",
  "TOOL_NOT_FOUND",
]);

/** Characters of a tool path kept in a record. */
const MAX_RECORDED_PATH_CHARS = 256;

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

  constructor(options: ToolBridgeOptions) {
    this.#options = options;
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
   * finished since). A batch that may wait is held for its one call up to `BLOCKING_GRACE_MS`;
   * the answers of a batch sent ahead are kept for the next crossing, which answers them.
   */
  submit = (batchText: unknown): string | Promise<string> => {
    const batch = decodeCallBatch(batchText);
    // Only a damaged guest runtime sends this; it still leaves a record.
    if (batch === undefined)
      return this.#answerNow([this.#refuse(this.#nextSlot(), "", "INPUT_INVALID", "Malformed call batch.")]);
    const later = batch.answer === "later";
    const answers: string[] = [];
    let waiting: Promise<string> | undefined;
    for (const request of batch.requests) {
      const answer = this.#start(request);
      if (typeof answer !== "string") {
        if (batch.answer === "mayWait" && batch.requests.length === 1) waiting = answer;
        else void answer.then(this.#finishedLater);
      } else if (later) this.#finishedLater(answer);
      else answers.push(answer);
    }
    if (later) return encodeCallAnswers([]);
    return waiting === undefined ? this.#answerNow(answers) : this.#holdBriefly(waiting);
  };

  /** Resolves with the answers of calls that finished since the last answer, as soon as there is one. */
  wait = (): Promise<string> => {
    if (this.#closed) return Promise.resolve(encodeCallAnswers([]));
    // One wait is outstanding at a time; a second one takes over, the first gets nothing.
    this.#waiter?.(encodeCallAnswers([]));
    return new Promise((resolve) => {
      this.#waiter = resolve;
      if (this.#ready.length > 0) this.#scheduleDelivery();
    });
  };

  /**
   * One call: a call envelope, synchronously when the pipeline answered without waiting, else a
   * promise of one. Never throws or rejects.
   */
  handle = (path: unknown, argsJson: unknown): string | Promise<string> => {
    const runRequest = typeof path === "string" ? this.#options.runRequests?.get(path) : undefined;
    if (runRequest !== undefined) return this.#answerRunRequest(this.#sequence++, runRequest, argsJson);
    const slot = this.#nextSlot();
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
    const call: ToolCall = { id: callId, tool, input, caller: "program", programId: this.#options.programId };
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
  };

  /** Whether the answers waiting for the guest have reached `maxPendingResultBytes`. */
  get #resultsFull(): boolean {
    const budget = this.#options.maxPendingResultBytes;
    return budget !== undefined && this.#pendingAnswerChars >= budget;
  }

  /** Tracks `answer`, counting `bytes` of arguments as in flight until it settles. */
  #holdArguments(bytes: number, answer: Promise<string>): Promise<string> {
    this.#pendingArgumentBytes += bytes;
    return this.#track(
      answer.finally(() => {
        this.#pendingArgumentBytes -= bytes;
      }),
    );
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

  #start(request: CallRequest): string | Promise<string> {
    if (request.kind === "call") return this.handle(request.path, request.argsJson);
    // Refused inside the sandbox before its arguments crossed: it is still a call of the run.
    const slot = this.#nextSlot();
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
    return `${this.#options.programId}.${slot.number + 1}`;
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

  #answerNow(answers: string[]): string {
    if (this.#ready.length === 0) return encodeCallAnswers(answers);
    const ready = this.#ready;
    this.#ready = [];
    this.#handedOver(ready);
    return encodeCallAnswers([...ready, ...answers]);
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

  /** Holds a crossing for its one call's answer, up to the grace; past it the answer goes to `wait`. */
  #holdBriefly(answer: Promise<string>): Promise<string> {
    return new Promise((resolve) => {
      let held = true;
      const timer = setTimeout(() => {
        held = false;
        resolve(this.#answerNow([]));
      }, BLOCKING_GRACE_MS);
      void answer.then((text) => {
        if (!held) return this.#finishedLater(text);
        held = false;
        clearTimeout(timer);
        this.#handedOver([text]);
        resolve(this.#answerNow([text]));
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
      const waiter = this.#waiter;
      if (waiter === undefined || this.#ready.length === 0) return;
      this.#waiter = undefined;
      waiter(this.#answerNow([]));
    });
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

  #track(running: Promise<string>): Promise<string> {
    this.#inFlight++;
    return running.finally(() => {
      if (--this.#inFlight === 0) this.#idle?.();
    });
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
