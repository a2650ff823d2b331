// OpenTelemetry spans of an agent run, built from its events: an `invoke_agent` span for the
// run and a `chat {model}` span per model request with its token usage (GenAI semantic
// conventions). Tool calls and program runs made under the agent span become its children
// through the session's own spans. Nothing is created when the agent span does not record.

import { context, SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer } from "@opentelemetry/api";
import type { AgentEvent } from "./agent-events.js";
import type { ModelUsage } from "./model-adapter.js";
import * as attribute from "../telemetry/semantic-attributes.js";

/** What an agent run's spans are started with. */
export interface AgentSpanStart {
  /** The adapter's provider name (`anthropic`, `openai`, ...). */
  readonly provider: string;
  readonly mode: string;
  readonly maxTokens: number;
}

/** The spans of one agent run; see the module comment. */
export interface AgentTelemetry {
  /** Feeds an agent event to the spans; never throws. */
  readonly onEvent: (event: AgentEvent) => void;
  /** The context whose active span is the current model request's (else the agent's). */
  readonly turnContext: () => Context;
  /** The context whose active span is the agent's: tool calls and program runs run in it. */
  readonly agentContext: () => Context;
  /** Ends every open span; for a run that ended by throwing. Idempotent. */
  readonly end: () => void;
}

/**
 * Starts the `invoke_agent` span as a child of the active context's span. Returns undefined
 * when there is no tracer or the span does not record (no provider registered, not sampled).
 */
export function startAgentTelemetry(tracer: Tracer | undefined, start: AgentSpanStart): AgentTelemetry | undefined {
  if (tracer === undefined) return undefined;
  const agentSpan = tracer.startSpan("invoke_agent", {
    kind: SpanKind.INTERNAL,
    attributes: {
      [attribute.GEN_AI_OPERATION_NAME]: "invoke_agent",
      [attribute.GEN_AI_PROVIDER_NAME]: start.provider,
      [attribute.AGENT_MODE]: start.mode,
    },
  });
  if (!agentSpan.isRecording()) return undefined;
  const agentContext = trace.setSpan(context.active(), agentSpan);
  let turn: { span: Span; context: Context } | undefined;
  let ended = false;

  const endTurn = (errorType?: string): void => {
    if (turn === undefined) return;
    if (errorType !== undefined) {
      turn.span.setAttribute(attribute.ERROR_TYPE, errorType);
      turn.span.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
    }
    turn.span.end();
    turn = undefined;
  };

  const onEvent = (event: AgentEvent): void => {
    if (ended) return;
    switch (event.type) {
      case "turn-start": {
        endTurn();
        const span = tracer.startSpan(
          "chat",
          {
            kind: SpanKind.CLIENT,
            attributes: {
              [attribute.GEN_AI_OPERATION_NAME]: "chat",
              [attribute.GEN_AI_PROVIDER_NAME]: start.provider,
              [attribute.GEN_AI_REQUEST_MAX_TOKENS]: start.maxTokens,
            },
          },
          agentContext,
        );
        turn = { span, context: trace.setSpan(agentContext, span) };
        return;
      }
      case "model-response": {
        if (turn === undefined) return;
        if (event.model !== undefined) {
          turn.span.updateName(`chat ${event.model}`);
          turn.span.setAttribute(attribute.GEN_AI_RESPONSE_MODEL, event.model);
        }
        if (event.responseId !== undefined) turn.span.setAttribute(attribute.GEN_AI_RESPONSE_ID, event.responseId);
        turn.span.setAttributes({
          ...usageAttributes(event.usage),
          [attribute.GEN_AI_RESPONSE_FINISH_REASONS]: [event.rawStopReason ?? event.stopReason],
        });
        endTurn();
        agentSpan.setAttributes(usageAttributes(event.totalUsage));
        return;
      }
      case "stop": {
        // A request that failed (context window, network, cancellation) has no response event.
        endTurn(event.status);
        agentSpan.setAttributes({ [attribute.AGENT_STATUS]: event.status, [attribute.AGENT_STEPS]: event.step });
        if (event.status !== "completed") {
          agentSpan.setAttribute(attribute.ERROR_TYPE, event.status);
          agentSpan.setStatus({ code: SpanStatusCode.ERROR, message: event.reason ?? event.status });
        }
        ended = true;
        agentSpan.end();
        return;
      }
      default:
        return;
    }
  };

  return {
    onEvent,
    turnContext: () => turn?.context ?? agentContext,
    agentContext: () => agentContext,
    end: () => {
      if (ended) return;
      endTurn("error");
      ended = true;
      agentSpan.setStatus({ code: SpanStatusCode.ERROR, message: "the agent run threw" });
      agentSpan.end();
    },
  };
}

function usageAttributes(usage: ModelUsage): Record<string, number> {
  return {
    [attribute.GEN_AI_USAGE_INPUT_TOKENS]: usage.input,
    [attribute.GEN_AI_USAGE_OUTPUT_TOKENS]: usage.output,
    [attribute.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]: usage.cacheRead,
    [attribute.GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS]: usage.cacheCreation,
  };
}
