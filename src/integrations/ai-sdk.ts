// Switchyard for the Vercel AI SDK (`switchyard-runtime/ai-sdk`): AI SDK 7 (Node >= 22) and 6 (for
// Node 20). `createCodeModeTool` is an AI SDK tool that runs model-written programs;
// `toolsFromAiSdk` turns an AI SDK tool set into Switchyard tools programs can call. The `ai`
// package is an optional peer: importing this module without it fails with the install command.

import type { FlexibleSchema, Tool, ToolSet } from "ai";
import type { JsonSchema, RunResult } from "../contract.js";
import { SwitchyardError, ToolError } from "../errors.js";
import { renderRunResultForModel } from "../model-tools/render-for-model.js";
import { defineTool, type ToolDefinition } from "../registry/define-tool.js";
import {
  createCodeModeResumeTool,
  createCodeModeRunner,
  type CodeModeToolOptions,
  type CodeModeHost,
} from "./code-mode-run.js";
import type { ResumeRunInput } from "../model-tools/resume-run-tool.js";
import { importOptionalWith } from "../optional-dependency.js";
import {
  finalValueOf,
  importedToolFields,
  importedToolName,
  refuseUnapproved,
  type ImportToolsOptions,
} from "./imported-tools.js";

export type { CodeModeHost, CodeModeToolOptions } from "./code-mode-run.js";
export type { ImportToolsOptions } from "./imported-tools.js";

const ai = await importOptionalWith("ai", () => import("ai"));

/** The input of the code-mode tool. */
export interface ProgramInput {
  readonly code: string;
}

/**
 * The code-mode tool as the AI SDK sees it: its output is the whole RunResult (read it from
 * `steps[n].toolResults`), while the model reads the result rendered as compact text.
 */
export type CodeModeTool = Tool<ProgramInput, RunResult>;

/**
 * What a tool's `execute` receives, in either major: AI SDK 7 made it generic over the tool's
 * context (and requires `context`), AI SDK 6 is not generic; both are read off `Tool`.
 */
type ExecutionOptions = Parameters<NonNullable<Tool["execute"]>>[1];

/**
 * An AI SDK tool that runs the program the model writes in `yard`: put it in `tools` under the
 * name `run_program`. Its description is `yard.programTool()`'s (instructions and the
 * TypeScript declarations of the catalog), read afresh each step, so catalog changes show. A
 * failed run reaches the model as an error result with the code and the failing line.
 */
export function createCodeModeTool(yard: CodeModeHost, options: CodeModeToolOptions = {}): CodeModeTool {
  const run = createCodeModeRunner(yard, options);
  // No explicit type arguments: AI SDK 7's two-argument overload reads them as <INPUT, CONTEXT>.
  return ai.tool({
    get description(): string {
      return yard.programTool().description;
    },
    inputSchema: ai.jsonSchema<ProgramInput>(yard.programTool().inputSchema as Parameters<typeof ai.jsonSchema>[0]),
    execute: (input: ProgramInput, { toolCallId, abortSignal }: ExecutionOptions): Promise<RunResult> =>
      run(input, { toolCallId, signal: abortSignal }),
    toModelOutput: ({ output }: { output: RunResult }) => ({
      type: output.ok ? "text" : "error-text",
      value: renderRunResultForModel(output),
    }),
  });
}

/** The resume tool as the AI SDK sees it: its output is the resumed run's whole RunResult. */
export type ResumeRunTool = Tool<ResumeRunInput, RunResult>;

/**
 * An AI SDK tool that resumes a paused durable run of the code-mode tool: put it in `tools` under
 * the name `resume_run`, next to `createCodeModeTool(yard, options)` with the same `durable`
 * options. The model reads the resumed run like a program's result (it may pause again); a
 * refusal (`RUN_NOT_FOUND`, `RUN_FINISHED`, `PERMISSION_DENIED` for an approval the model made
 * without `durable.modelApprovals`) reaches it as the tool's error. Throws SwitchyardError
 * OPTION_INVALID without `durable`.
 */
export function createResumeRunTool(yard: CodeModeHost, options: CodeModeToolOptions): ResumeRunTool {
  const { definition, resume } = createCodeModeResumeTool(yard, options);
  return ai.tool({
    description: definition.description,
    inputSchema: ai.jsonSchema<ResumeRunInput>(definition.inputSchema as Parameters<typeof ai.jsonSchema>[0]),
    execute: (input: ResumeRunInput, { toolCallId, abortSignal }: ExecutionOptions): Promise<RunResult> =>
      resume(input, { toolCallId, signal: abortSignal }),
    toModelOutput: ({ output }: { output: RunResult }) => ({
      type: output.ok ? "text" : "error-text",
      value: renderRunResultForModel(output),
    }),
  });
}

/**
 * Switchyard tools (`<namespace>.<key>`) that run the AI SDK tools of `tools` with their own
 * `execute`, so programs can call an existing tool set. Each keeps its JSON Schema as the AI
 * SDK converts it (zod included); the tool's own validation (zod defaults and transforms) runs
 * before its `execute`. A call the tool's `needsApproval` wants approved ends PERMISSION_DENIED.
 * Throws SwitchyardError OPTION_INVALID for a tool without `execute`, a provider-defined tool,
 * or a schema whose JSON Schema is only available asynchronously.
 */
export function toolsFromAiSdk(tools: ToolSet, options: ImportToolsOptions): ToolDefinition[] {
  return Object.entries(tools).map(([name, tool]) => importTool(name, tool, options));
}

/** The parts of an AI SDK tool an import reads; `ToolSet`'s union of tool types, flattened. */
interface ImportableTool {
  readonly type?: string;
  readonly description?: string;
  readonly title?: string;
  readonly inputSchema: FlexibleSchema<unknown>;
  readonly outputSchema?: FlexibleSchema<unknown>;
  readonly needsApproval?: boolean | ((input: unknown, options: ExecutionOptions) => boolean | PromiseLike<boolean>);
  readonly execute?: (input: unknown, options: ExecutionOptions) => unknown;
}

function importTool(name: string, entry: ToolSet[string], options: ImportToolsOptions): ToolDefinition {
  const tool = entry as ImportableTool;
  const fullName = importedToolName(options, name);
  const execute = tool.execute;
  if (tool.type === "provider" || typeof execute !== "function") {
    throw new SwitchyardError(
      "OPTION_INVALID",
      `AI SDK tool "${name}" cannot be called from programs: it ${tool.type === "provider" ? "is run by the model provider" : "has no execute function"}.`,
    );
  }
  const input = ai.asSchema(tool.inputSchema);
  const output = tool.outputSchema === undefined ? undefined : ai.asSchema(tool.outputSchema);
  return defineTool({
    name: fullName,
    description: tool.description ?? tool.title ?? "",
    inputSchema: jsonSchemaOf(input.jsonSchema, name),
    ...(output === undefined ? {} : { outputSchema: jsonSchemaOf(output.jsonSchema, name) }),
    ...importedToolFields(options, name),
    source: "ai-sdk",
    execute: async (raw: unknown, context) => {
      const validated =
        input.validate === undefined ? { success: true as const, value: raw } : await input.validate(raw);
      if (!validated.success) {
        throw new ToolError(`Invalid input for ${fullName}: ${validated.error.message}`, { code: "INPUT_INVALID" });
      }
      // `context` is AI SDK 7's per-tool context (what generateText's tool context would give);
      // a program's call has none. AI SDK 6 ignores the field.
      const callOptions = {
        toolCallId: context.callId,
        messages: [],
        abortSignal: context.signal,
        context: {},
      } as ExecutionOptions;
      const needsApproval =
        typeof tool.needsApproval === "function"
          ? await tool.needsApproval(validated.value, callOptions)
          : tool.needsApproval === true;
      if (needsApproval) refuseUnapproved(fullName);
      return finalValueOf(execute(validated.value, callOptions));
    },
  });
}

function jsonSchemaOf(schema: unknown, name: string): JsonSchema {
  if (schema !== null && typeof schema === "object" && typeof (schema as PromiseLike<unknown>).then === "function") {
    throw new SwitchyardError(
      "OPTION_INVALID",
      `AI SDK tool "${name}": its JSON Schema is only available asynchronously; pass jsonSchema({...}) or a zod schema.`,
    );
  }
  return schema as JsonSchema;
}
