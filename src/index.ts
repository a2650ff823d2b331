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
export {
  Switchyard,
  type CallToolOptions,
  type RunOptions,
  type SwitchyardOptions,
  type TypeCheckMode,
} from "./switchyard.js";
export { DEFAULT_RUN_LIMITS, type RunLimits } from "./sandbox/run-program.js";

// Station 1: registry.
export { defineTool, type ToolContext, type ToolDefinition, type ToolSpec } from "./registry/define-tool.js";
export { ToolRegistry, type CatalogSnapshot, type RegisteredTool } from "./registry/tool-registry.js";
export { loadToolModule } from "./registry/load-tool-module.js";
export {
  connectMcpSource,
  type McpSource,
  type McpSourceEvent,
  type McpSourceOptions,
  type McpSourceState,
  type McpTransportOptions,
} from "./registry/mcp-source.js";

// Built-in tools (off unless added).
export { createWorkspaceTools, type WorkspaceToolsOptions } from "./builtins/workspace-tools.js";
export { resolveInWorkspace } from "./builtins/workspace-path.js";
export { createShellTool, shellPermissionRules, type ShellToolOptions } from "./builtins/shell-tool.js";
export { createHttpFetchTool, type HttpFetchToolOptions } from "./builtins/http-fetch-tool.js";

// Configuration file.
export {
  loadConfig,
  resolveConfig,
  type LoadedConfig,
  type McpServerConfig,
  type SwitchyardConfig,
} from "./config/load-config.js";
export {
  createSwitchyardFromConfig,
  type ConfiguredSwitchyard,
  type CreateFromConfigOptions,
} from "./config/create-switchyard-from-config.js";
export { CONFIG_SCHEMA } from "./config/config-schema.js";

// Station 2: discovery.
export { Discovery, type CatalogStats, type DiscoveryOptions, type SearchToolsAnswer } from "./search/discovery.js";
export { ToolSearch, type SearchResult, type ToolReference, type ToolSearchOptions } from "./search/tool-search.js";
export { countTokens, TOKENIZER } from "./search/token-count.js";

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

// Trace, OpenTelemetry and the run timeline page.
export { TraceBus, type TraceEvent, type TraceListener } from "./trace/trace-events.js";
export { JsonlTraceWriter } from "./trace/jsonl-trace-writer.js";
export {
  SwitchyardTelemetry,
  traceContextMeta,
  type RunSpanStart,
  type TelemetryOptions,
} from "./telemetry/switchyard-telemetry.js";
export { buildTimeline, type BuildTimelineOptions } from "./timeline/build-timeline.js";
export { parseTraceLines, readTraceFile } from "./timeline/read-trace-file.js";
export { renderTimelinePage, writeTimelinePage } from "./timeline/render-timeline-page.js";
export type {
  SourceMark,
  TimelineCall,
  TimelineCallStatus,
  TimelineData,
  TimelineRun,
} from "../browser/timeline-data.js";

// The agent loop and provider adapters.
export {
  runAgent,
  DEFAULT_AGENT_SYSTEM_PROMPT,
  type AgentBudgets,
  type AgentResult,
  type AgentStopCode,
  type AgentUsage,
  type RunAgentOptions,
} from "./agent/run-agent.js";
export type { AgentEvent, AgentEventListener } from "./agent/agent-events.js";
export {
  AGENT_MODES,
  createAgentToolset,
  type AgentMode,
  type AgentToolset,
  type ToolTarget,
} from "./agent/agent-toolset.js";
export { decideTurn, type AgentStatus, type StopPolicy, type TurnDecision } from "./agent/stop-policy.js";
export {
  ContextWindowExceededError,
  type ModelAdapter,
  type ModelRequest,
  type ModelTurn,
  type ModelUsage,
  type StopReason,
} from "./agent/model-adapter.js";
export { ProviderToolNames, toProviderToolName } from "./agent/provider-tool-names.js";
export {
  unansweredToolCalls,
  type AgentMessage,
  type ContentBlock,
  type ToolCallBlock,
  type ToolResultBlock,
} from "./agent/transcript.js";
export {
  buildAnthropicRequest,
  createAnthropicAdapter,
  type AnthropicAdapterOptions,
  type AnthropicRequestBody,
} from "./agent/anthropic-adapter.js";
export { buildOpenAIRequest, createOpenAIAdapter, type OpenAIAdapterOptions } from "./agent/openai-adapter.js";
export {
  describeProgramTool,
  describeSearchTool,
  renderRunResultForModel,
  renderSearchAnswerForModel,
  renderToolOutcomeForModel,
  type ModelToolDefinition,
} from "./program-tool.js";

// Switchyard as an MCP server (code-mode gateway).
export { createGatewayServer, type GatewayServer, type GatewayServerOptions } from "./gateway/gateway-server.js";
export { GatewayApprovals, CANNOT_ASK_REASON, type ApprovalAsker } from "./gateway/gateway-approvals.js";
export { serveGateway, type ServeGatewayOptions, type RunningGateway } from "./gateway/serve-gateway.js";
