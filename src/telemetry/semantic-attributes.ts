// The attribute names Switchyard's spans carry: the OpenTelemetry GenAI semantic conventions
// where they define one (`gen_ai.*`, `error.type`), and `switchyard.*` for what they do not.
// Kept in one place so spans, tests and docs spell them alike.

/** `execute_tool`, `chat` or `invoke_agent`. */
export const GEN_AI_OPERATION_NAME = "gen_ai.operation.name";
export const GEN_AI_PROVIDER_NAME = "gen_ai.provider.name";
export const GEN_AI_TOOL_NAME = "gen_ai.tool.name";
export const GEN_AI_TOOL_CALL_ID = "gen_ai.tool.call.id";
export const GEN_AI_TOOL_TYPE = "gen_ai.tool.type";
export const GEN_AI_REQUEST_MAX_TOKENS = "gen_ai.request.max_tokens";
export const GEN_AI_RESPONSE_MODEL = "gen_ai.response.model";
export const GEN_AI_RESPONSE_ID = "gen_ai.response.id";
export const GEN_AI_RESPONSE_FINISH_REASONS = "gen_ai.response.finish_reasons";
export const GEN_AI_USAGE_INPUT_TOKENS = "gen_ai.usage.input_tokens";
export const GEN_AI_USAGE_OUTPUT_TOKENS = "gen_ai.usage.output_tokens";
export const GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS = "gen_ai.usage.cache_read.input_tokens";
export const GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS = "gen_ai.usage.cache_creation.input_tokens";
/** The error code of a failed operation (`TOOL_TIMEOUT`, `RUNTIME_ERROR`, ...). */
export const ERROR_TYPE = "error.type";

export const PROGRAM_ID = "switchyard.program.id";
export const CATALOG_VERSION = "switchyard.catalog.version";
/** `ok` or `error`, for a run; a CallStatus (`ok`, `error`, `denied`, `timeout`...) for a call. */
export const RUN_STATUS = "switchyard.run.status";
export const RUN_TOOL_CALLS = "switchyard.run.tool_calls";
/** Prefix of the per-status counts of a run: `switchyard.run.calls.ok`, `.denied`, ... */
export const RUN_CALLS_PREFIX = "switchyard.run.calls.";
export const RUN_SOURCE_BYTES = "switchyard.run.source_bytes";
export const RUN_CPU_MS = "switchyard.run.cpu_ms";
export const CALL_STATUS = "switchyard.tool.call.status";
export const CALL_CALLER = "switchyard.tool.call.caller";
/** Milliseconds the call waited (approval, locks) before its tool started. */
export const CALL_QUEUED_MS = "switchyard.tool.call.queued_ms";
export const CALL_BYTES_IN = "switchyard.tool.call.bytes_in";
export const CALL_BYTES_OUT = "switchyard.tool.call.bytes_out";
export const AGENT_MODE = "switchyard.agent.mode";
export const AGENT_STATUS = "switchyard.agent.status";
export const AGENT_STEPS = "switchyard.agent.steps";
