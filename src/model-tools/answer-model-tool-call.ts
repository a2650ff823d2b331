// One function answers every call to Switchyard's own model-facing tools (run_program,
// search_tools, describe_tools, call_tool, resume_run), whichever surface it came through: the agent
// loop, the MCP gateway or a framework tool. Inputs are checked with the pipeline's JSON
// Schema validator; every outcome, refusals included, is an answer, never a rejection.

import type { CallError, JsonSchema, RunResult, ToolOutcome } from "../contract.js";
import { messageOf, SwitchyardError, ToolError } from "../errors.js";
import type { Approver } from "../permissions/permission-gate.js";
import type { RunLimits } from "../sandbox/run-program.js";
import type { SearchToolsAnswer } from "../search/discovery.js";
import type { ToolSearchOptions } from "../search/tool-search.js";
import type { ResumeOptions, RunOptions } from "../execute-program.js";
import type { CallToolOptions } from "../switchyard-options.js";
import { CALL_TOOL_TOOL, readCallToolRequest } from "./call-tool-tool.js";
import {
  DESCRIBE_TOOLS_TOOL,
  type DescribeAnswer,
  type DescribeToolsHost,
  describeTools,
  readDescribeRequest,
} from "./describe-tools-tool.js";
import { readModelToolInput } from "./read-model-tool-input.js";
import { readOutputSchema } from "./read-output-schema.js";
import { RUN_PROGRAM_TOOL, RUN_PROGRAM_WITH_INPUT_SCHEMA, type RunProgramInput } from "./run-program-tool.js";
import { readSearchRequest, SEARCH_TOOLS_TOOL } from "./search-tools-tool.js";
import { mintRunId, type ModelDurableOptions } from "./model-durable-runs.js";
import { type PersonAsker, resumePausedRun, storeOf } from "./resume-paused-run.js";
import { RESUME_RUN_TOOL } from "./resume-run-tool.js";

/** The names of Switchyard's own model-facing tools. */
export type ModelToolName =
  | typeof RUN_PROGRAM_TOOL
  | typeof SEARCH_TOOLS_TOOL
  | typeof DESCRIBE_TOOLS_TOOL
  | typeof CALL_TOOL_TOOL
  | typeof RESUME_RUN_TOOL;

/** Every model-facing tool name; resume_run is answered only on a call that brings `durable`. */
export const MODEL_TOOL_NAMES: readonly ModelToolName[] = [
  RUN_PROGRAM_TOOL,
  SEARCH_TOOLS_TOOL,
  DESCRIBE_TOOLS_TOOL,
  CALL_TOOL_TOOL,
  RESUME_RUN_TOOL,
];

/** One call of a model-facing tool, as a surface received it. */
export interface ModelToolCall {
  readonly name: string;
  /** The arguments as the model sent them: unchecked. */
  readonly input: unknown;
  /** The model's id for the call (e.g. `tool_use.id`); call_tool passes it on to the pipeline. */
  readonly callId?: string;
  /** Cancels the run or call; its calls end `CANCELLED`. */
  readonly signal?: AbortSignal;
  /** run_program: limits of the run; default the session's. */
  readonly limits?: Partial<RunLimits>;
  /** run_program: the JSON Schema the program's output must match (see `RunOptions.outputSchema`). */
  readonly outputSchema?: JsonSchema;
  /** run_program: told the program's id before the program runs. */
  readonly onStart?: (programId: string) => void;
  /** Answers the `ask` decisions of the calls this request makes, instead of the session's approver. */
  readonly approve?: Approver;
  /** The model tools this surface offers; any other name is refused. Default: all of them. */
  readonly offered?: readonly ModelToolName[];
  /**
   * The surface runs programs durably: run_program runs under an id the surface mints, and
   * resume_run resumes a paused one of its runs. Without it, resume_run is refused.
   */
  readonly durable?: ModelDurableOptions | undefined;
  /** resume_run: asks a person about a pending call (see `PersonAsker`). */
  readonly askPerson?: PersonAsker | undefined;
}

/** What a model tool call produced; render it with `renderModelToolAnswer` or a surface's own shape. */
export type ModelToolAnswer =
  | { readonly tool: typeof RUN_PROGRAM_TOOL; readonly run: RunResult; readonly source: string }
  | { readonly tool: typeof SEARCH_TOOLS_TOOL; readonly search: SearchToolsAnswer }
  | { readonly tool: typeof DESCRIBE_TOOLS_TOOL; readonly describe: DescribeAnswer }
  | { readonly tool: typeof CALL_TOOL_TOOL; readonly outcome: ToolOutcome }
  /** `source` is the program the run's journal keeps. */
  | { readonly tool: typeof RESUME_RUN_TOOL; readonly run: RunResult; readonly source: string }
  | { readonly tool: "refused"; readonly name: string; readonly error: CallError };

/** What the model-facing tools need of a session: run, resume, search, describe, call (a Switchyard fits). */
export interface ModelToolHost extends DescribeToolsHost {
  run(source: string, options?: RunOptions): Promise<RunResult>;
  resume(id: string, options?: ResumeOptions): Promise<RunResult>;
  findAndLoad(query: string, options?: ToolSearchOptions): Promise<SearchToolsAnswer>;
  callTool(name: string, input: unknown, options?: CallToolOptions): Promise<ToolOutcome>;
}

/**
 * Answers one model tool call against `yard`: checks the input, then runs the program, searches,
 * describes or makes the direct call. Resolves with a `refused` answer for an unknown or not
 * offered name and for invalid input (`TOOL_NOT_FOUND`, `INPUT_INVALID`, `PATTERN_INVALID`).
 */
export async function answerModelToolCall(yard: ModelToolHost, call: ModelToolCall): Promise<ModelToolAnswer> {
  const offered = call.offered ?? MODEL_TOOL_NAMES;
  const refuse = (error: CallError): ModelToolAnswer => ({ tool: "refused", name: call.name, error });
  if (!(offered as readonly string[]).includes(call.name)) {
    return refuse({
      code: "TOOL_NOT_FOUND",
      message: `No tool named "${String(call.name).slice(0, 200)}" here; the tools are ${offered.join(", ")}.`,
    });
  }
  switch (call.name as ModelToolName) {
    case RUN_PROGRAM_TOOL: {
      const read = readModelToolInput<RunProgramInput>(
        RUN_PROGRAM_TOOL,
        RUN_PROGRAM_WITH_INPUT_SCHEMA,
        call.input,
        "{ code: string }, the TypeScript program, optionally `input`, any JSON value it reads, and `outputSchema`, the JSON Schema its return value must match",
      );
      if (!read.ok) return refuse(read.error);
      const contract = outputContractOf(call.outputSchema, read.value.outputSchema);
      if (!contract.ok) return refuse(contract.error);
      const runOptions = {
        ...(read.value.input === undefined ? {} : { input: read.value.input }),
        ...(contract.schema === undefined ? {} : { outputSchema: contract.schema }),
        ...(call.callId === undefined ? {} : { toolCallId: call.callId }),
        ...(call.signal === undefined ? {} : { signal: call.signal }),
        ...(call.limits === undefined ? {} : { limits: call.limits }),
        ...(call.onStart === undefined ? {} : { onStart: call.onStart }),
        ...(call.approve === undefined ? {} : { approve: call.approve }),
        ...(call.durable === undefined ? {} : { durable: durableRunOptions(call.durable) }),
      };
      let run: RunResult;
      try {
        run = await yard.run(read.value.code, runOptions);
      } catch (error) {
        // Vetted, the model's schema can still be one ajv rejects (`{ "type": "nonsense" }`): its
        // mistake, answered as one. The surface's own schema compiled when the surface started.
        if (!SwitchyardError.isInstance(error) || error.code !== "SCHEMA_INVALID") throw error;
        return refuse({
          code: "INPUT_INVALID",
          message: `run_program's outputSchema was refused, nothing ran: ${error.message}`,
          details: { path: "/outputSchema", reason: error.message },
        });
      }
      return { tool: RUN_PROGRAM_TOOL, run, source: read.value.code };
    }
    case SEARCH_TOOLS_TOOL: {
      const read = readSearchRequest(call.input);
      if (!read.ok) return refuse(read.error);
      try {
        return { tool: SEARCH_TOOLS_TOOL, search: await yard.findAndLoad(read.request.text, read.request.options) };
      } catch (error) {
        if (ToolError.isInstance(error)) return refuse({ code: error.code, message: error.message });
        return refuse({ code: "TOOL_ERROR", message: messageOf(error) });
      }
    }
    case DESCRIBE_TOOLS_TOOL: {
      const read = readDescribeRequest(call.input);
      if (!read.ok) return refuse(read.error);
      return { tool: DESCRIBE_TOOLS_TOOL, describe: await describeTools(yard, read.names) };
    }
    case CALL_TOOL_TOOL: {
      const read = readCallToolRequest(call.input);
      if (!read.ok) return refuse(read.error);
      const outcome = await yard.callTool(read.name, read.input, {
        ...(call.callId === undefined ? {} : { callId: call.callId }),
        ...(call.signal === undefined ? {} : { signal: call.signal }),
        ...(call.approve === undefined ? {} : { approve: call.approve }),
      });
      return { tool: CALL_TOOL_TOOL, outcome };
    }
    case RESUME_RUN_TOOL: {
      if (call.durable === undefined)
        return refuse({ code: "TOOL_NOT_FOUND", message: "Runs here are not durable: there is no run to resume." });
      const resumed = await resumePausedRun(yard, {
        input: call.input,
        durable: call.durable,
        signal: call.signal,
        limits: call.limits,
        outputSchema: call.outputSchema,
        onStart: call.onStart,
        approve: call.approve,
        askPerson: call.askPerson,
      });
      return resumed.ok ? { tool: RESUME_RUN_TOOL, run: resumed.run, source: resumed.source } : refuse(resumed.error);
    }
  }
}

/** A durable run of a surface: a fresh id of its own, its store and timings. */
function durableRunOptions(durable: ModelDurableOptions): NonNullable<RunOptions["durable"]> {
  return {
    id: mintRunId(durable),
    // The store resume_run reads, named outright: not the session's, which may differ.
    store: storeOf(durable),
    ...(durable.askTimeoutMs === undefined ? {} : { askTimeoutMs: durable.askTimeoutMs }),
    ...(durable.retentionMs === undefined ? {} : { retentionMs: durable.retentionMs }),
  };
}

/**
 * The run's output contract: the surface's (`ModelToolCall.outputSchema`, the host's word) and the
 * model's per-call one (vetted first); with both, the output must match both (`allOf`).
 */
function outputContractOf(
  surface: JsonSchema | undefined,
  requested: unknown,
): { readonly ok: true; readonly schema: JsonSchema | undefined } | { readonly ok: false; readonly error: CallError } {
  if (requested === undefined) return { ok: true, schema: surface };
  const read = readOutputSchema(requested);
  if (!read.ok) return read;
  return { ok: true, schema: surface === undefined ? read.schema : { allOf: [surface, read.schema] } };
}
