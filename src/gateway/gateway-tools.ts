// The fixed tool set the MCP gateway exposes and the shape of their results: run_program,
// search_tools, describe_tools and (opt-in) call_tool. Pure functions from Switchyard values to
// MCP tool definitions and CallToolResults; the server wires them to requests.

import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { JsonValue, RunResult, ToolOutcome } from "../contract.js";
import {
  countCallsByStatus,
  renderRunResultForModel,
  renderSearchAnswerForModel,
  renderToolOutcomeForModel,
  type ModelToolDefinition,
} from "../program-tool.js";
import type { SearchToolsAnswer } from "../search/discovery.js";

export const DESCRIBE_TOOLS_TOOL = "describe_tools";
export const CALL_TOOL_TOOL = "call_tool";

/** Most names one describe_tools request may ask for. */
export const MAX_DESCRIBED_TOOLS = 50;
/** Most failed calls listed by name in a run_program result. */
const MAX_LISTED_FAILURES = 20;

/** The `describe_tools` tool. */
export function describeDescribeTool(): ModelToolDefinition {
  return {
    name: DESCRIBE_TOOLS_TOOL,
    description:
      "Get the TypeScript declarations of tools by full name (e.g. 'memory.create_entities'), to call them from run_program. Unknown names are reported with the closest known names.",
    inputSchema: {
      type: "object",
      properties: {
        names: {
          type: "array",
          items: { type: "string" },
          minItems: 1,
          maxItems: MAX_DESCRIBED_TOOLS,
          description: "Full tool names.",
        },
      },
      required: ["names"],
      additionalProperties: false,
    },
  };
}

/** The `call_tool` tool: one direct call through the same pipeline programs use. */
export function describeCallTool(): ModelToolDefinition {
  return {
    name: CALL_TOOL_TOOL,
    description:
      "Call one tool directly by full name with a JSON input, through the same validation and permissions as programs. Prefer run_program for more than one call.",
    inputSchema: {
      type: "object",
      properties: {
        name: { type: "string", description: "Full tool name, e.g. 'memory.read_graph'." },
        input: { type: "object", description: "The tool's input.", additionalProperties: true },
      },
      required: ["name"],
      additionalProperties: false,
    },
  };
}

/** A model tool definition as an MCP Tool. */
export function toMcpTool(tool: ModelToolDefinition): Tool {
  return { name: tool.name, description: tool.description, inputSchema: tool.inputSchema as Tool["inputSchema"] };
}

/** What run_program's structuredContent holds: the RunResult, compacted, always an object. */
export interface RunProgramContent {
  readonly ok: boolean;
  readonly programId: string;
  readonly output: JsonValue;
  readonly error?: {
    readonly code: string;
    readonly message: string;
    readonly line?: number;
    readonly column?: number;
  };
  readonly logs: readonly string[];
  readonly warnings: readonly { readonly line: number; readonly message: string }[];
  readonly calls: {
    readonly total: number;
    /** Counts by status, with the code for failures: `{ "ok": 3, "cancelled CANCELLED": 1 }`. */
    readonly byStatus: Readonly<Record<string, number>>;
    /** The first failed calls (id, tool, status, code). */
    readonly failed: readonly {
      readonly id: string;
      readonly tool: string;
      readonly status: string;
      readonly code?: string;
    }[];
  };
  readonly stats: RunResult["stats"];
  readonly catalogVersion: number;
}

/**
 * A RunResult as a CallToolResult: compact text for the model (with the failing source line
 * quoted), the structured result, and `isError` when the run failed.
 */
export function runResultToToolResult(result: RunResult, source: string): CallToolResult {
  const byStatus = countCallsByStatus(result);
  const failed = result.calls
    .filter((call) => call.status !== "ok")
    .slice(0, MAX_LISTED_FAILURES)
    .map((call) => ({
      id: call.id,
      tool: call.tool,
      status: call.status,
      ...(call.code === undefined ? {} : { code: call.code }),
    }));
  const error = result.error;
  const content: RunProgramContent = {
    ok: result.ok,
    programId: result.programId,
    output: result.output,
    ...(error === undefined
      ? {}
      : {
          error: {
            code: error.code,
            message: error.message,
            ...(error.line === undefined ? {} : { line: error.line }),
            ...(error.column === undefined ? {} : { column: error.column }),
          },
        }),
    logs: result.logs,
    warnings: result.warnings.map((warning) => ({ line: warning.line, message: warning.message })),
    calls: { total: result.stats.toolCalls, byStatus, failed },
    stats: result.stats,
    catalogVersion: result.catalogVersion,
  };
  let text = renderRunResultForModel(result);
  const quoted = error?.line === undefined ? undefined : source.split("\n")[error.line - 1]?.trim().slice(0, 200);
  // Type errors already quote their lines; other errors get the line they point at.
  if (quoted !== undefined && quoted !== "" && !error!.message.includes(quoted))
    text += `\nline ${error!.line}: ${quoted}`;
  return {
    content: [{ type: "text", text }],
    structuredContent: content as unknown as Record<string, unknown>,
    isError: !result.ok,
  };
}

/** A search_tools answer: references, then the found tools' declarations. */
export function searchAnswerToToolResult(answer: SearchToolsAnswer, catalogVersion: number): CallToolResult {
  return {
    content: [{ type: "text", text: renderSearchAnswerForModel(answer) }],
    structuredContent: {
      references: answer.references.map((reference) => ({ ...reference })),
      declarations: answer.declarations,
      catalogVersion,
    },
  };
}

/** What describe_tools found: declarations, and the unknown names with the closest known ones. */
export interface DescribeAnswer {
  /** Full names described, in the order asked. */
  readonly found: readonly string[];
  /** Their declarations in one `declare const tools` wrapper. */
  readonly declarations: string;
  readonly unknown: readonly { readonly name: string; readonly closest: readonly string[] }[];
}

/** A describe_tools answer; `isError` only when no name was known. */
export function describeAnswerToToolResult(answer: DescribeAnswer, catalogVersion: number): CallToolResult {
  const declarations = answer.declarations.trim();
  const lines: string[] = [];
  if (declarations !== "") lines.push("```ts", declarations, "```");
  for (const unknown of answer.unknown) {
    const hint =
      unknown.closest.length > 0 ? ` Did you mean ${unknown.closest.join(", ")}?` : " Find names with search_tools.";
    lines.push(`Unknown tool "${unknown.name}".${hint}`);
  }
  return {
    content: [{ type: "text", text: lines.join("\n") }],
    structuredContent: {
      declarations,
      found: [...answer.found],
      unknown: answer.unknown.map((unknown) => ({ name: unknown.name, closest: [...unknown.closest] })),
      catalogVersion,
    },
    isError: answer.found.length === 0,
  };
}

/** A direct call's outcome as a CallToolResult; the value is wrapped so the content is an object. */
export function outcomeToToolResult(outcome: ToolOutcome, catalogVersion: number): CallToolResult {
  const structured =
    outcome.status === "ok"
      ? { callId: outcome.callId, tool: outcome.tool, status: outcome.status, value: outcome.value, catalogVersion }
      : {
          callId: outcome.callId,
          tool: outcome.tool,
          status: outcome.status,
          error: { ...outcome.error },
          catalogVersion,
        };
  return {
    content: [{ type: "text", text: renderToolOutcomeForModel(outcome) }],
    structuredContent: structured,
    isError: outcome.status !== "ok",
  };
}

/** A failure as a tool error whose text is `error CODE: message`, the form models read elsewhere. */
export function errorResult(code: string, message: string): CallToolResult {
  return { content: [{ type: "text", text: `error ${code}: ${message}` }], isError: true };
}

/** A refused request to one of the gateway's own tools (bad arguments), as a tool error. */
export function inputErrorResult(message: string): CallToolResult {
  return errorResult("INPUT_INVALID", message);
}
