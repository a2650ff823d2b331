// The one shared vocabulary of Switchyard: what a tool call is, what it resolves to, and
// the closed set of error codes. Every station speaks these types; nothing here does work.
// Codes are stable strings: models, programs and integrators match on them.

/** A JSON value as it crosses the sandbox boundary: plain data only. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A JSON Schema object. Kept loose on purpose: ajv is the authority on what is valid. */
export type JsonSchema = { [keyword: string]: unknown } | boolean;

/** How a tool touches the world; it decides scheduling and default permission. */
export type ToolEffect = "read" | "write" | "destructive";

/**
 * Who asked for a call: a model turn directly, a program in Switchyard's sandbox, or a program
 * the provider runs itself (Anthropic code execution, OpenAI programmatic tool calling) whose
 * tool calls come back to the client.
 */
export type CallerKind = "direct" | "program" | "hosted-program";

/** The provider program a `hosted-program` call came from. */
export interface HostedCaller {
  /** `anthropic`, `openai-responses`, ...: the adapter's provider. */
  readonly provider: string;
  /** The provider's id of the running program: Anthropic `caller.tool_id`, OpenAI `caller.caller_id`. */
  readonly toolId: string;
}

/** Codes of calls the model or program can fix or react to. Returned, never thrown. */
export type CallErrorCode =
  | "TOOL_NOT_FOUND"
  | "INPUT_INVALID"
  | "OUTPUT_INVALID"
  | "ARGUMENT_TOO_LARGE"
  | "PERMISSION_DENIED"
  | "TOOL_TIMEOUT"
  | "CANCELLED"
  | "TOOL_ERROR"
  | "RESULT_TOO_LARGE"
  | "TOOL_CALL_LIMIT"
  | "SOURCE_UNAVAILABLE"
  | "PATH_OUTSIDE_WORKSPACE"
  | "PATTERN_INVALID"
  | "WRITE_QUOTA_EXCEEDED"
  | "RATE_LIMIT_UNAVAILABLE"
  | "RUN_FINISHED"
  /** `resume_run`: no durable run by that id that this surface started (or it expired). */
  | "RUN_NOT_FOUND"
  /** `resume_run`: the run is being run or resumed right now, here or in another process. */
  | "RUN_BUSY";

/** A code chosen by a tool author through `ToolError` (SCREAMING_SNAKE by convention). */
export type ToolDefinedCode = string & {};

/** Codes that end a whole program run. */
export type RunErrorCode =
  | "SYNTAX_ERROR"
  | "TYPE_ERROR"
  | "TYPE_CHECK_FAILED"
  | "SOURCE_TOO_LARGE"
  | "RUNTIME_ERROR"
  | "TIMEOUT"
  | "CPU_LIMIT"
  | "MEMORY_LIMIT"
  | "TOOL_CALL_LIMIT"
  | "OUTPUT_TOO_LARGE"
  | "OUTPUT_NOT_SERIALIZABLE"
  | "OUTPUT_INVALID"
  | "INPUT_INVALID"
  | "INPUT_TOO_LARGE"
  | "PERMISSION_DENIED"
  | "CANCELLED"
  | "SANDBOX_CRASHED"
  | "RUN_QUEUE_FULL"
  | "REPLAY_DIVERGED"
  | "PAUSED"
  | "JOURNAL_INVALID"
  | "JOURNAL_LIMIT"
  | "JOURNAL_WRITE_FAILED"
  | "RUN_BUSY"
  | "INTERNAL_ERROR";

/** The status of one call's single outcome. */
export type CallStatus = "ok" | "error" | "invalid" | "denied" | "timeout" | "cancelled";

/** One tool call as the pipeline receives it. */
export interface ToolCall {
  /** Unique within a session; the outcome carries the same id. */
  readonly id: string;
  /** The tool's full name, `namespace.name` or a bare name. */
  readonly tool: string;
  /** Unvalidated arguments: whatever the model or program sent. */
  readonly input: unknown;
  readonly caller: CallerKind;
  /** Set when the call comes from a program run. */
  readonly programId?: string;
  /** Set when the call comes from a provider's hosted program (`caller: "hosted-program"`). */
  readonly hostedCaller?: HostedCaller;
  /** Overrides the tool's own timeout, still capped by the run's and session's budgets. */
  readonly timeoutMs?: number;
  /**
   * Set for a durable run's calls: the run's id and the call's position (`<runId>:<n>`), the
   * same on every try of the call, so a tool can recognise the call that was in flight at a crash.
   */
  readonly idempotencyKey?: string | undefined;
}

/** A structured error carried as data to the model or the program. */
export interface CallError {
  readonly code: CallErrorCode | ToolDefinedCode;
  /** What failed and what to try next; safe to show to a model (no host paths or stacks). */
  readonly message: string;
  /** Machine-readable specifics, e.g. the failing schema paths of INPUT_INVALID. */
  readonly details?: JsonValue;
}

/**
 * How many secrets of each kind were replaced by `[REDACTED:<kind>]` in what a model sees,
 * e.g. `{ "github-token": 2, jwt: 1 }`. Absent when nothing was redacted.
 */
export type RedactionCounts = Readonly<Record<string, number>>;

/**
 * The one result of one call, bound to its id. An ok `value` is untrusted data from the tool's
 * system: it is handed on as data and never interpreted as instructions by Switchyard. A direct
 * call's value and error have their secrets redacted (see `redactions`); a program's are whole.
 */
export type ToolOutcome =
  | {
      readonly callId: string;
      readonly tool: string;
      readonly status: "ok";
      readonly value: unknown;
      readonly redactions?: RedactionCounts;
    }
  | {
      readonly callId: string;
      readonly tool: string;
      readonly status: Exclude<CallStatus, "ok">;
      readonly error: CallError;
      readonly redactions?: RedactionCounts;
    };

/** What a run remembers of each call it made. */
export interface CallRecord {
  readonly id: string;
  readonly tool: string;
  readonly caller: CallerKind;
  /** The provider program that made the call, for `caller: "hosted-program"`. */
  readonly hostedCaller?: HostedCaller;
  readonly status: CallStatus;
  readonly code?: CallErrorCode | ToolDefinedCode;
  readonly durationMs: number;
  /**
   * Of `durationMs`, the time the call waited before its tool started (an approver's answer,
   * locks, its rate-limit slot), in ms; absent when it did not wait.
   */
  readonly queuedMs?: number;
  /** Bytes of the JSON arguments that entered the host. */
  readonly bytesIn: number;
  /** Bytes of the JSON result handed back to the program. */
  readonly bytesOut: number;
  /** Set when a durable run's replay answered the call from its journal: the tool was not called again. */
  readonly replayed?: true;
}

/** Why a run failed, located in the model's own source where that is known. */
export interface RunError {
  readonly code: RunErrorCode;
  readonly message: string;
  /** 1-based line in the source the model wrote. */
  readonly line?: number;
  /** 1-based column in the source the model wrote. */
  readonly column?: number;
  readonly diagnostics?: readonly Diagnostic[];
  /** Machine-readable specifics, e.g. the failing schema paths of `INPUT_INVALID` and `OUTPUT_INVALID`. */
  readonly details?: JsonValue;
}

/** A compiler or lint finding located in the model's source. */
export interface Diagnostic {
  readonly line: number;
  readonly column: number;
  readonly message: string;
  /** TypeScript's error number (`TS2339` → 2339), or a lint rule name. */
  readonly code: number | string;
  readonly severity: "error" | "warning";
}

export interface RunStats {
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly toolCalls: number;
  /** Bytes that moved into the sandbox as tool results: context the model never saw. */
  readonly bytesIn: number;
  /** Bytes that left the sandbox as the program's output and logs. */
  readonly bytesOut: number;
  /**
   * What answered the program's type check: the type checker (its process, or its cache of checks
   * it made), or the run's journal (a durable run resumed against exactly what its first check saw,
   * see docs/durable-runs.md). Absent when the program was not checked (`typeCheck: "off"`).
   */
  readonly typeCheckedBy?: "checker" | "journal" | undefined;
}

/** Everything a program run produced. `yard.run` resolves to this and never rejects for program faults. */
export interface RunResult {
  readonly ok: boolean;
  readonly programId: string;
  /** The program's return value as JSON (`undefined` becomes `null`); `null` when the run failed. */
  readonly output: JsonValue;
  readonly logs: readonly string[];
  readonly error?: RunError;
  readonly warnings: readonly Diagnostic[];
  readonly calls: readonly CallRecord[];
  readonly stats: RunStats;
  /** The catalog version the run was compiled against. */
  readonly catalogVersion: number;
  /** Secrets replaced in the output, logs and error message by kind; absent when none. */
  readonly redactions?: RedactionCounts;
}

/** Maps a failed outcome's code to the status recorded for it. */
export function statusForCode(code: CallErrorCode | ToolDefinedCode): Exclude<CallStatus, "ok"> {
  switch (code) {
    case "INPUT_INVALID":
    case "ARGUMENT_TOO_LARGE":
    case "TOOL_NOT_FOUND":
    case "PATTERN_INVALID":
      return "invalid";
    case "PERMISSION_DENIED":
    case "PATH_OUTSIDE_WORKSPACE":
      return "denied";
    case "TOOL_TIMEOUT":
      return "timeout";
    case "CANCELLED":
    case "RUN_FINISHED":
      return "cancelled";
    default:
      return "error";
  }
}
