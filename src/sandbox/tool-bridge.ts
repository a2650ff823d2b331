// The host side of a program's tool calls. Every call arrives as two strings (a dotted path
// and JSON arguments); sizes and depth are checked before anything is parsed, `__proto__`
// keys are dropped, and the call runs through the one pipeline. The bridge resolves every
// call with an envelope string, never a rejection, and keeps exactly one record per call.

import {
  type CallErrorCode,
  type CallRecord,
  type JsonValue,
  statusForCode,
  type ToolCall,
  type ToolDefinedCode,
} from "../contract.js";
import { runToolCall, type PipelineContext, type PipelineResult } from "../execute-tool-call.js";
import { DESCRIBE_PATH, SEARCH_PATH, encodeCallFailure, encodeCallSuccess } from "../../runtime/wire.js";
import { messageOf, ToolError } from "../errors.js";

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
  /** Called once when the program exceeds `maxToolCalls`; the run should end. */
  readonly onCallLimit: () => void;
  readonly discovery?: DiscoveryHandler | undefined;
  /**
   * Answers for the run's own requests by path (`$timer`, `$budget`): not tool calls, so they
   * get no record and use none of `maxToolCalls`. Each takes the request's text.
   */
  readonly runRequests?: ReadonlyMap<string, (text: string) => string | Promise<string>>;
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
  #sequence = 0;

  constructor(options: ToolBridgeOptions) {
    this.#options = options;
  }

  /** One record per call made, in call order. */
  get records(): CallRecord[] {
    return this.#records.filter((record): record is CallRecord => record !== undefined);
  }

  /** Calls the program has made so far, refused ones included. */
  get callsMade(): number {
    return this.#sequence;
  }

  /** Bytes of results handed into the sandbox. */
  get bytesIn(): number {
    return this.#bytesIn;
  }

  /** Refuses every later call with `RUN_FINISHED`. */
  close(): void {
    this.#closed = true;
  }

  /** Resolves when every call that entered the pipeline has its record. */
  settled(): Promise<void> {
    if (this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => (this.#idle = resolve));
  }

  /**
   * The function the guest calls: a call envelope, synchronously when the pipeline answered
   * without waiting, else a promise of one. Never throws or rejects.
   */
  handle = (path: unknown, argsJson: unknown): string | Promise<string> => {
    const runRequest = typeof path === "string" ? this.#options.runRequests?.get(path) : undefined;
    if (runRequest !== undefined) {
      if (this.#closed) return encodeCallFailure(null, "RUN_FINISHED", "The program has already finished.");
      return runRequest(String(argsJson));
    }
    const index = this.#sequence++;
    const callId = `${this.#options.programId}.${index + 1}`;
    const tool = typeof path === "string" ? path.slice(0, 256) : "";
    const refuse = (code: CallErrorCode, message: string, bytesIn = 0): string => {
      this.#records[index] = {
        id: callId,
        tool,
        caller: "program",
        status: code === "RUN_FINISHED" ? "cancelled" : "invalid",
        code,
        durationMs: 0,
        bytesIn,
        bytesOut: 0,
      };
      return encodeCallFailure(callId, code, message);
    };
    if (this.#closed) return refuse("RUN_FINISHED", "The program has already finished; this call was not made.");
    if (typeof path !== "string" || typeof argsJson !== "string")
      return refuse("INPUT_INVALID", "Malformed tool call.");
    if (index >= this.#options.maxToolCalls) {
      if (index === this.#options.maxToolCalls) this.#options.onCallLimit();
      return refuse("TOOL_CALL_LIMIT", `The program made more than ${this.#options.maxToolCalls} tool calls.`);
    }
    // Checked before parsing: a hostile program controls both the size and the nesting.
    if (argsJson.length > this.#options.maxArgumentBytes) {
      return refuse(
        "ARGUMENT_TOO_LARGE",
        `The arguments are larger than ${this.#options.maxArgumentBytes} bytes.`,
        argsJson.length,
      );
    }
    if (exceedsJsonDepth(argsJson, this.#options.maxArgumentDepth)) {
      return refuse(
        "ARGUMENT_TOO_LARGE",
        `The arguments are nested deeper than ${this.#options.maxArgumentDepth} levels.`,
        argsJson.length,
      );
    }
    if (this.#pendingArgumentBytes + argsJson.length > this.#options.maxPendingArgumentBytes) {
      return refuse(
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
      return refuse("INPUT_INVALID", "The arguments are not valid JSON.", argsJson.length);
    }
    if (path === SEARCH_PATH || path === DESCRIBE_PATH)
      return this.#track(this.#discover(index, callId, path, input, argsJson.length));
    const call: ToolCall = { id: callId, tool: path, input, caller: "program", programId: this.#options.programId };
    let result: PipelineResult | Promise<PipelineResult>;
    try {
      result = runToolCall(call, this.#options.pipeline, { inputBytes: argsJson.length });
    } catch (error) {
      return this.#internalFailure(index, callId, path, error);
    }
    if (!(result instanceof Promise)) return this.#deliver(index, result);
    const held = argsJson.length;
    this.#pendingArgumentBytes += held;
    const delivered = result.then(
      (done) => this.#deliver(index, done),
      (error: unknown) => this.#internalFailure(index, callId, path, error),
    );
    return this.#track(
      delivered.finally(() => {
        this.#pendingArgumentBytes -= held;
      }),
    );
  };

  #deliver(index: number, { outcome, json, record }: PipelineResult): string {
    this.#records[index] = record;
    if (outcome.status === "ok") {
      this.#bytesIn += record.bytesOut;
      return encodeCallSuccess(record.id, json ?? "null");
    }
    return encodeCallFailure(record.id, outcome.error.code, outcome.error.message, outcome.error.details);
  }

  // A bug in the host, not in the program: the call still gets its one record and answer.
  #internalFailure(index: number, callId: string, tool: string, error: unknown): string {
    this.#records[index] = {
      id: callId,
      tool,
      caller: "program",
      status: "error",
      code: "TOOL_ERROR",
      durationMs: 0,
      bytesIn: 0,
      bytesOut: 0,
    };
    return encodeCallFailure(callId, "TOOL_ERROR", `Internal error in the host pipeline: ${messageOf(error)}`);
  }

  #track(running: Promise<string>): Promise<string> {
    this.#inFlight++;
    return running.finally(() => {
      if (--this.#inFlight === 0) this.#idle?.();
    });
  }

  async #discover(index: number, callId: string, path: string, input: unknown, bytesIn: number): Promise<string> {
    const started = Date.now();
    const discovery = this.#options.discovery;
    const record = (status: CallRecord["status"], bytesOut: number, code?: CallErrorCode | ToolDefinedCode): void => {
      this.#records[index] = {
        id: callId,
        tool: path,
        caller: "program",
        status,
        ...(code === undefined ? {} : { code }),
        durationMs: Date.now() - started,
        bytesIn,
        bytesOut,
      };
    };
    if (discovery === undefined) {
      record("invalid", 0, "TOOL_NOT_FOUND");
      return encodeCallFailure(callId, "TOOL_NOT_FOUND", "Tool search is not enabled for this run.");
    }
    try {
      const value = await (path === SEARCH_PATH ? discovery.search(input) : discovery.describe(input));
      const json = JSON.stringify(value);
      const bytes = Buffer.byteLength(json);
      record("ok", bytes);
      this.#bytesIn += bytes;
      return encodeCallSuccess(callId, json);
    } catch (error) {
      // The handler refuses with the code a model would get from search_tools or describe_tools.
      const code = ToolError.isInstance(error) ? error.code : "INPUT_INVALID";
      record(statusForCode(code), 0, code);
      return encodeCallFailure(callId, code, messageOf(error));
    }
  }
}

/** `JSON.parse` reviver: a `__proto__` key is dropped, so parsed input can never carry one. */
function dropProtoKeys(key: string, value: unknown): unknown {
  return key === "__proto__" ? undefined : value;
}

/** Whether JSON text nests deeper than `maxDepth`, by a linear scan that skips strings. */
export function exceedsJsonDepth(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 92 /* \ */) index++;
      else if (code === 34 /* " */) inString = false;
    } else if (code === 34) {
      inString = true;
    } else if (code === 123 /* { */ || code === 91 /* [ */) {
      if (++depth > maxDepth) return true;
    } else if (code === 125 /* } */ || code === 93 /* ] */) {
      depth--;
    }
  }
  return false;
}
