// Switchyard's public API, grouped by station. Everything a user imports is listed here by
// name; modules not listed are internal and may change.

// The shared vocabulary.
export type {
  CallError,
  CallErrorCode,
  CallRecord,
  CallStatus,
  CallerKind,
  Diagnostic,
  JsonSchema,
  JsonValue,
  RunError,
  RunErrorCode,
  RunResult,
  RunStats,
  ToolCall,
  ToolEffect,
  ToolOutcome,
} from "./contract.js";
export { SwitchyardError, ToolError, type ConfigErrorCode } from "./errors.js";

// The session.
export { Switchyard, type CallToolOptions, type RunOptions, type SwitchyardOptions } from "./switchyard.js";
export { DEFAULT_RUN_LIMITS, type RunLimits } from "./sandbox/run-program.js";

// Station 1: registry.
export { defineTool, type ToolContext, type ToolDefinition, type ToolSpec } from "./registry/define-tool.js";
export { ToolRegistry, type CatalogSnapshot, type RegisteredTool } from "./registry/tool-registry.js";

// Station 3: schemas.
export { generateDeclarations, generateToolDeclaration, RUNTIME_DECLARATIONS } from "./schema/generate-declarations.js";

// Station 4: permissions and scheduling.
export {
  PermissionGate,
  type ApprovalAnswer,
  type PermissionDecision,
  type PermissionOptions,
  type PermissionRequest,
  type PermissionRule,
} from "./permissions/permission-gate.js";
export { classifyCommand, type CommandClassification, type CommandRisk } from "./permissions/command-classifier.js";
export { ToolScheduler, type SchedulerOptions } from "./scheduler/tool-scheduler.js";

// Station 5: results.
export { SpillStore } from "./results/spill-store.js";
export { createReadResultTool } from "./results/read-result-tool.js";
export type { ResultBudgetOptions } from "./results/result-budget.js";

// The pipeline, composed.
export { executeToolCall, type PipelineContext } from "./execute-tool-call.js";

// Trace.
export { TraceBus, type TraceEvent, type TraceListener } from "./trace/trace-events.js";
export { JsonlTraceWriter } from "./trace/jsonl-trace-writer.js";
