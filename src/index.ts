// Switchyard's public API (`switchyard-runtime`), grouped by station. Everything a user imports
// is listed here by name; modules not listed are internal and may change. The core loads no
// provider SDK and no tokenizer: the agent loop is `switchyard-runtime/agent`, the MCP gateway
// `switchyard-runtime/gateway`, the scripted model server `switchyard-runtime/testing`.

// The shared vocabulary.
export type {
  CallError,
  CallErrorCode,
  CallRecord,
  CallStatus,
  CallerKind,
  Diagnostic,
  HostedCaller,
  RedactionCounts,
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
export { OPTIONAL_DEPENDENCIES, type OptionalDependency } from "./optional-dependency.js";

// The session.
export {
  OUTPUT_DRIFT,
  Switchyard,
  type CallToolOptions,
  type CheckOptions,
  type CheckResult,
  type RunOptions,
  type SwitchyardOptions,
  type TypeCheckMode,
} from "./switchyard.js";
export { DEFAULT_RUN_LIMITS, type RunLimits } from "./sandbox/run-program.js";
export { TypeChecker, type TypeCheckerOptions, type TypeCheckerStats } from "./program/type-checker.js";
export { RunQueue, type RunQueueOptions, type RunQueueStats } from "./sandbox/run-queue.js";
export { WorkerPool, type WorkerExit, type WorkerPoolOptions } from "./sandbox/worker-pool.js";

// Durable runs: a journal of every crossing, replay to resume, pauses for a person.
export type { ResumeOptions } from "./execute-program.js";
export {
  DEFAULT_ASK_TIMEOUT_MS,
  DEFAULT_RETENTION_MS,
  type DurableOptions,
  type RunDecision,
} from "./durable/durable-run.js";
export { FileRunJournal, type FileRunJournalOptions } from "./durable/file-run-journal.js";
export { summarizeJournal } from "./durable/summarize-journal.js";
export { type DecideRunRefusal, decideRun } from "./durable/decide-run.js";
export { JournalError, type JournalErrorCode } from "./durable/journal-error.js";
export { isRunId, MAX_RUN_ID_CHARS } from "./durable/run-id.js";
export type {
  JournalEntry,
  JournalHeader,
  JournalWriter,
  OpenedJournal,
  PendingRequest,
  ResumeEntry,
  RunJournal,
  RunState,
  RunSummary,
  StoredJournal,
} from "./durable/run-journal.js";

// Redaction: secrets replaced before anything reaches a model.
export {
  Redactor,
  countByKind,
  type RedactedJson,
  type RedactedText,
  type Redaction,
  type RedactionOptions,
} from "./redaction/redactor.js";
export type { KnownSecret } from "./redaction/known-secrets.js";
export type { RedactionPattern } from "./redaction/user-patterns.js";

// The pipeline, step 1: the registry.
export { defineTool, type ToolContext, type ToolDefinition, type ToolSpec } from "./registry/define-tool.js";
export { ToolRegistry, type CatalogSnapshot, type RegisteredTool } from "./registry/tool-registry.js";
export type { SkippedTool, SourceAttachment } from "./registry/source-attachment.js";

// Tool sources: one contract, attached with registry.attachSource.
export type { SourceTool, ToolSource, ToolSourceState } from "./registry/tool-source.js";
export { ModuleToolSource, type ModuleToolSourceOptions } from "./sources/module-source.js";
export { loadToolModule } from "./sources/load-tool-module.js";
export {
  connectMcpSource,
  McpToolSource,
  type McpSource,
  type McpSourceEvent,
  type McpSourceOptions,
  type McpSourceState,
  type McpTransportOptions,
} from "./sources/mcp/mcp-source.js";

// Built-in tools (off unless added).
export { createWorkspaceTools, type WorkspaceToolsOptions } from "./builtins/workspace-tools.js";
export { resolveInWorkspace } from "./builtins/workspace-path.js";
export {
  createShellTool,
  type ShellLimits,
  type ShellNetwork,
  shellPermissionRules,
  type ShellToolOptions,
} from "./builtins/shell-tool.js";
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

// Discovery: what the model is shown of the catalog.
export {
  Discovery,
  DEFAULT_MAX_LOADED_TOKENS,
  type CatalogStats,
  type DiscoveryOptions,
  type SearchToolsAnswer,
} from "./search/discovery.js";
export {
  ToolSearch,
  type SearchResult,
  type ToolReference,
  type ToolSearchIndexOptions,
  type ToolSearchOptions,
} from "./search/tool-search.js";
export { CONCEPT_GROUPS, ONE_WAY_TERMS, QUESTION_WORDS, READING_WORDS } from "./search/vocabulary.js";
export { QUESTION_WEIGHT, QueryExpander, type QueryConcept } from "./search/query-expansion.js";
export { type Embedder, EmbeddingIndex, fuseByReciprocalRank } from "./search/embedding-index.js";
export { createOpenAIEmbedder, type OpenAIEmbedderOptions } from "./search/openai-embedder.js";
export { createTransformersEmbedder, type TransformersEmbedderOptions } from "./search/transformers-embedder.js";
export {
  bestTokenCounter,
  countTokens,
  estimateTokens,
  ESTIMATED_TOKENIZER,
  TOKENIZER,
  type TokenCounter,
} from "./search/token-count.js";

// Steps 2 and 6: schemas (validation, and the declarations programs are checked against).
export {
  generateDeclarations,
  generateToolDeclaration,
  generateToolDeclarations,
  RUNTIME_DECLARATIONS,
} from "./schema/generate-declarations.js";
export {
  ObservedOutputTypes,
  type ObservedType,
  type ObservedTypesOptions,
} from "./schema/observed-output-types.js";
export type { ObservedKind, ObservedSchema } from "./schema/observed-schema.js";

// Steps 3 and 4: permissions and scheduling.
export {
  PermissionGate,
  type ApprovalAnswer,
  type Approver,
  type PermissionDecision,
  type PermissionOptions,
  type PermissionRequest,
  type PermissionRule,
} from "./permissions/permission-gate.js";
export { classifyCommand, type CommandClassification, type CommandRisk } from "./permissions/command-classifier.js";
export { ToolScheduler, type SchedulerOptions } from "./scheduler/tool-scheduler.js";
export {
  InProcessRateLimiter,
  type RateLimitBucket,
  type RateLimiter,
  type RateLimitReservation,
  type RateLimitRule,
} from "./scheduler/rate-limiter.js";

// Step 7: results.
export { SpillStore } from "./results/spill-store.js";
export type { ResultBudgetOptions } from "./results/result-budget.js";

// The pipeline, composed.
export { executeToolCall, type PipelineContext } from "./execute-tool-call.js";

// Trace, OpenTelemetry and the run timeline page.
export {
  TraceBus,
  type RedactionEvent,
  type RedactionLocation,
  type TraceEvent,
  type TraceListener,
} from "./trace/trace-events.js";
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
  TimelineRedaction,
  TimelineRun,
} from "../browser/timeline-data.js";

// The model-facing tools (run_program, search_tools, describe_tools, call_tool), answered once for every surface.
export {
  answerModelToolCall,
  MODEL_TOOL_NAMES,
  type ModelToolAnswer,
  type ModelToolCall,
  type ModelToolName,
} from "./model-tools/answer-model-tool-call.js";
export type { ModelToolDefinition } from "./model-tools/model-tool-definition.js";
export { describeProgramTool, RUN_PROGRAM_TOOL } from "./model-tools/run-program-tool.js";
export { describeSearchTool, SEARCH_TOOLS_TOOL } from "./model-tools/search-tools-tool.js";
export { describeDescribeTool, DESCRIBE_TOOLS_TOOL, type DescribeAnswer } from "./model-tools/describe-tools-tool.js";
export { describeCallTool, CALL_TOOL_TOOL } from "./model-tools/call-tool-tool.js";
export { describeResumeRunTool, RESUME_RUN_TOOL, type ResumeRunInput } from "./model-tools/resume-run-tool.js";
export type { ModelDurableOptions } from "./model-tools/model-durable-runs.js";
export { pausedRunOf, type PausedRequest, type PausedRun } from "./model-tools/paused-run.js";
export { createReadResultTool } from "./model-tools/read-result-tool.js";
export {
  renderDescribeAnswerForModel,
  renderModelToolAnswer,
  renderRunResultForModel,
  renderSearchAnswerForModel,
  renderToolOutcomeForModel,
} from "./model-tools/render-for-model.js";
