// Switchyard for the OpenAI Agents SDK (`switchyard-runtime/openai-agents`): @openai/agents 0.20 with
// openai 7 (Node >= 22), and 0.14 with openai 6 (Node 20). `createCodeModeTool` is a function tool
// that runs model-written programs; `toolsFromOpenAIAgents` turns Agents SDK function tools into
// Switchyard tools. `@openai/agents` is an optional peer: without it, importing fails with the command.

import type { FunctionTool, Tool } from "@openai/agents";
import type { JsonSchema } from "../contract.js";
import { SwitchyardError } from "../errors.js";
import { renderRunResultForModel } from "../model-tools/render-for-model.js";
import { defineTool, type ToolDefinition } from "../registry/define-tool.js";
import {
  createCodeModeResumeTool,
  createCodeModeRunner,
  type CodeModeToolOptions,
  type CodeModeHost,
} from "./code-mode-run.js";
import { RESUME_RUN_TOOL } from "../model-tools/resume-run-tool.js";
import { importOptionalWith } from "../optional-dependency.js";
import { importedToolFields, importedToolName, refuseUnapproved, type ImportToolsOptions } from "./imported-tools.js";

export type { CodeModeHost, CodeModeToolOptions } from "./code-mode-run.js";
export type { ImportToolsOptions } from "./imported-tools.js";

const agents = await importOptionalWith("@openai/agents", () => import("@openai/agents"));

/** The code-mode tool as the Agents SDK sees it: a strict function tool whose output is text for the model. */
export type CodeModeTool = FunctionTool<unknown, ProgramParameters, string>;

type ProgramParameters = {
  type: "object";
  properties: { code: { type: "string"; description: string } };
  required: ["code"];
  additionalProperties: false;
};

/**
 * An Agents SDK function tool named `run_program` that runs the program the model writes in
 * `yard` and answers with the result rendered for the model (output, logs, error with its line,
 * a calls summary). The whole RunResult goes to `options.onRun` with the model's call id. The
 * description is `yard.programTool()`'s, read afresh each turn, so catalog changes show.
 */
export function createCodeModeTool(yard: CodeModeHost, options: CodeModeToolOptions = {}): CodeModeTool {
  const run = createCodeModeRunner(yard, options);
  const codeMode = agents.tool({
    name: "run_program",
    description: yard.programTool().description,
    parameters: yard.programTool().inputSchema as ProgramParameters,
    strict: true,
    execute: async (input, _runContext, details) => {
      const result = await run(input, { toolCallId: details?.toolCall?.callId, signal: details?.signal });
      return renderRunResultForModel(result);
    },
  });
  // The SDK serializes tools on every turn: a getter keeps the declarations current.
  Object.defineProperty(codeMode, "description", {
    get: () => yard.programTool().description,
    enumerable: true,
    configurable: true,
  });
  return codeMode;
}

/**
 * An Agents SDK function tool named `resume_run` that resumes a paused durable run of the
 * code-mode tool made with the same `durable` options, answering with the resumed run rendered
 * for the model (it may pause again). Not strict: its `decisions` are optional. A refusal
 * (`RUN_NOT_FOUND`, `PERMISSION_DENIED` for an approval the model made) is thrown, which the SDK
 * hands the model as the tool's error text. Throws SwitchyardError OPTION_INVALID without `durable`.
 */
export function createResumeRunTool(yard: CodeModeHost, options: CodeModeToolOptions): ResumeRunTool {
  const { definition, resume } = createCodeModeResumeTool(yard, options);
  return agents.tool({
    name: RESUME_RUN_TOOL,
    description: definition.description,
    // Closed (`additionalProperties: false`) though not strict: the SDK's type only knows open objects.
    parameters: definition.inputSchema as unknown as ResumeParameters,
    strict: false,
    execute: async (input, _runContext, details) => {
      const result = await resume(input, { toolCallId: details?.toolCall?.callId, signal: details?.signal });
      return renderRunResultForModel(result);
    },
  });
}

/** The resume tool as the Agents SDK sees it: a function tool whose output is text for the model. */
export type ResumeRunTool = FunctionTool<unknown, ResumeParameters, string>;

type ResumeParameters = {
  type: "object";
  properties: Record<string, { type: "string" } | { type: "array" }>;
  required: ["runId"];
  additionalProperties: true;
};

/** Options of `toolsFromOpenAIAgents`. */
export interface ImportAgentsToolsOptions extends ImportToolsOptions {
  /** The context value the tools' `execute` sees as `runContext.context`. Default `{}`. */
  readonly context?: unknown;
}

/**
 * Switchyard tools (`<namespace>.<name>`) that invoke Agents SDK function tools, so programs
 * can call an existing tool list. Each keeps the JSON Schema the SDK made for it (zod schemas
 * converted by the SDK); the SDK's own parsing runs before the tool's `execute`. A call the
 * tool's `needsApproval` wants approved ends PERMISSION_DENIED. Note: by default the SDK turns
 * an exception in `execute` into a text result (its `errorFunction`); programs then see that
 * text as the value. Create tools with `errorFunction: null` to have failures arrive as
 * `TOOL_ERROR`. Throws SwitchyardError OPTION_INVALID for a tool that is not a function tool.
 */
export function toolsFromOpenAIAgents(tools: readonly Tool[], options: ImportAgentsToolsOptions): ToolDefinition[] {
  return tools.map((tool) => importTool(tool, options));
}

function importTool(tool: Tool, options: ImportAgentsToolsOptions): ToolDefinition {
  if (tool.type !== "function") {
    throw new SwitchyardError(
      "OPTION_INVALID",
      `Agents SDK tool "${tool.name}" is a ${tool.type} tool, run by the model provider or the SDK: only function tools can be called from programs.`,
    );
  }
  const fullName = importedToolName(options, tool.name);
  return defineTool({
    name: fullName,
    description: tool.description,
    inputSchema: tool.parameters as JsonSchema,
    ...importedToolFields(options, tool.name),
    source: "openai-agents",
    execute: async (input: unknown, context) => {
      const runContext = new agents.RunContext(options.context ?? {});
      if (await tool.needsApproval(runContext, input as never, context.callId)) refuseUnapproved(fullName);
      const argumentsText = JSON.stringify(input);
      return tool.invoke(runContext, argumentsText, {
        signal: context.signal,
        toolCall: { type: "function_call", callId: context.callId, name: tool.name, arguments: argumentsText },
      });
    },
  });
}
