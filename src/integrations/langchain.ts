// Switchyard for LangChain.js (`switchyard-runtime/langchain`, @langchain/core 1.x). `createCodeModeTool`
// is a structured tool that runs model-written programs (usable with `createAgent`, `bindTools`,
// LangGraph); `toolsFromLangChain` turns LangChain tools into Switchyard tools programs can call.
// `@langchain/core` is an optional peer: without it, importing fails with the install command.

import type { DynamicStructuredTool, StructuredToolInterface } from "@langchain/core/tools";
import type { JsonSchema } from "../contract.js";
import { ToolError } from "../errors.js";
import { renderRunResultForModel } from "../model-tools/render-for-model.js";
import { defineTool, type ToolDefinition } from "../registry/define-tool.js";
import {
  createCodeModeResumeTool,
  createCodeModeRunner,
  type CodeModeCall,
  type CodeModeToolOptions,
  type CodeModeHost,
} from "./code-mode-run.js";
import type { RunResult } from "../contract.js";
import { RESUME_RUN_TOOL } from "../model-tools/resume-run-tool.js";
import { importOptionalWith } from "../optional-dependency.js";
import { importedToolFields, importedToolName, type ImportToolsOptions } from "./imported-tools.js";

export type { CodeModeHost, CodeModeToolOptions } from "./code-mode-run.js";
export type { ImportToolsOptions } from "./imported-tools.js";

const { tool: langchainTool, ToolInputParsingException } = await importOptionalWith(
  "@langchain/core",
  () => import("@langchain/core/tools"),
);
const { toJsonSchema } = await importOptionalWith("@langchain/core", () => import("@langchain/core/utils/json_schema"));
const { ToolMessage } = await importOptionalWith("@langchain/core", () => import("@langchain/core/messages"));

/**
 * A LangChain structured tool named `run_program` that runs the program the model writes in
 * `yard`. Called with a tool call (as agents do), it answers with a ToolMessage whose content is
 * the result rendered for the model, whose `artifact` is the whole RunResult (the model never
 * sees it) and whose `status` is `error` when the run failed; called with plain input, it
 * answers with the rendered text. The description follows the catalog (`yard.programTool()`).
 */
export function createCodeModeTool(yard: CodeModeHost, options: CodeModeToolOptions = {}): DynamicStructuredTool {
  const codeMode = answeringTool("run_program", yard.programTool().inputSchema, createCodeModeRunner(yard, options));
  // Tools are converted for the model on every bind: a getter keeps the declarations current.
  Object.defineProperty(codeMode, "description", {
    get: () => yard.programTool().description,
    enumerable: true,
    configurable: true,
  });
  return codeMode;
}

/**
 * A LangChain structured tool named `resume_run` that resumes a paused durable run of the
 * code-mode tool made with the same `durable` options; it answers like the code-mode tool (a
 * ToolMessage whose `artifact` is the resumed RunResult). A refusal (`RUN_NOT_FOUND`,
 * `PERMISSION_DENIED` for an approval the model made) is thrown, as LangChain expects of a
 * tool's error. Throws SwitchyardError OPTION_INVALID without `durable`.
 */
export function createResumeRunTool(yard: CodeModeHost, options: CodeModeToolOptions): DynamicStructuredTool {
  const { definition, resume } = createCodeModeResumeTool(yard, options);
  const tool = answeringTool(RESUME_RUN_TOOL, definition.inputSchema, resume);
  tool.description = definition.description;
  return tool;
}

/** A structured tool whose answer is a run: a ToolMessage with the RunResult as its artifact, or plain text. */
function answeringTool(
  name: string,
  schema: unknown,
  answer: (input: unknown, call: CodeModeCall) => Promise<RunResult>,
): DynamicStructuredTool {
  return langchainTool(
    async (input: unknown, runtime) => {
      // LangChain 1 passes the tool call as `toolCall` and, inside agents, its id as `toolCallId`.
      const { toolCall, toolCallId: runtimeCallId } = (runtime ?? {}) as {
        toolCall?: { id?: string };
        toolCallId?: string;
      };
      const toolCallId = runtimeCallId ?? toolCall?.id;
      const result = await answer(input, { toolCallId, signal: runtime?.signal });
      const content = renderRunResultForModel(result);
      if (toolCallId === undefined) return content;
      return new ToolMessage({
        content,
        artifact: result,
        tool_call_id: toolCallId,
        name,
        status: result.ok ? "success" : "error",
      });
    },
    { name, description: "", schema: schema as Record<string, unknown> },
  ) as DynamicStructuredTool;
}

/**
 * Switchyard tools (`<namespace>.<name>`) that invoke LangChain tools, so programs can call an
 * existing tool list. Each keeps its JSON Schema (zod schemas converted with LangChain's own
 * `toJsonSchema`); LangChain's own parsing runs before the tool, and a parse failure is
 * INPUT_INVALID. The value is what the tool returns (its content, for content-and-artifact
 * tools); an exception is TOOL_ERROR with its message.
 */
export function toolsFromLangChain(
  tools: readonly StructuredToolInterface[],
  options: ImportToolsOptions,
): ToolDefinition[] {
  return tools.map((tool) => importTool(tool, options));
}

function importTool(tool: StructuredToolInterface, options: ImportToolsOptions): ToolDefinition {
  const fullName = importedToolName(options, tool.name);
  const inputSchema = toJsonSchema(tool.schema as Parameters<typeof toJsonSchema>[0]) as JsonSchema;
  return defineTool({
    name: fullName,
    description: tool.description,
    inputSchema,
    ...importedToolFields(options, tool.name),
    source: "langchain",
    execute: async (input: unknown, context) => {
      try {
        return await tool.invoke(input as never, { signal: context.signal });
      } catch (error) {
        if (error instanceof ToolInputParsingException) {
          throw new ToolError(`Invalid input for ${fullName}: ${error.message}`, { code: "INPUT_INVALID" });
        }
        throw error;
      }
    },
  });
}
