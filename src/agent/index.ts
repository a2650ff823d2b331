// `switchyard-runtime/agent`: the model loop and the provider adapters. The only entry that
// reaches the provider SDKs (@anthropic-ai/sdk, openai), which are optional peer dependencies:
// an adapter loads its SDK on first use and names the install command when it is missing.

export {
  runAgent,
  DEFAULT_AGENT_SYSTEM_PROMPT,
  type AgentBudgets,
  type AgentResult,
  type AgentStopCode,
  type AgentUsage,
  type RunAgentOptions,
} from "./run-agent.js";
export type { AgentEvent, AgentEventListener } from "./agent-events.js";
export {
  AGENT_MODES,
  createAgentToolset,
  type AgentMode,
  type AgentToolset,
  type AgentToolsetOptions,
  type ToolTarget,
} from "./agent-toolset.js";
export { decideTurn, type AgentStatus, type StopPolicy, type TurnDecision } from "./stop-policy.js";
export {
  ContainerExpiredError,
  ContextWindowExceededError,
  type ModelAdapter,
  type ModelRequest,
  type ModelTurn,
  type ModelUsage,
  type ProviderConnectionOptions,
  type ProviderToolDefinition,
  type StopReason,
} from "./model-adapter.js";
export { ProviderToolNames, toProviderToolName } from "./provider-tool-names.js";
export {
  unansweredToolCalls,
  type AgentMessage,
  type ContentBlock,
  type HostedCallerBlock,
  type ProviderContainer,
  type ToolCallBlock,
  type ToolResultBlock,
} from "./transcript.js";
export {
  buildAnthropicRequest,
  createAnthropicAdapter,
  type AnthropicAdapterOptions,
  type AnthropicRequestBody,
} from "./anthropic-adapter.js";
export { buildOpenAIRequest, createOpenAIAdapter, type OpenAIAdapterOptions } from "./openai-adapter.js";
export {
  buildOpenAIResponsesRequest,
  createOpenAIResponsesAdapter,
  type OpenAIResponsesAdapterOptions,
} from "./openai-responses-adapter.js";

// Model prices as data.
export {
  billedTokensOf,
  createPriceTable,
  DEFAULT_MODEL_PRICES,
  describePriceRow,
  loadPriceRows,
  parsePriceRows,
  priceRequests,
  priceTokens,
  sumCosts,
  type BilledCost,
  type BilledTokens,
  type ModelPrice,
  type PriceTable,
  type PriceTableOptions,
  type TokenPrices,
} from "./model-pricing.js";
