// What an agent run reports while it works, for live views and logs. Events are noun-then-verb
// with start/end pairs; a listener that throws is ignored, so a broken view cannot break a run.

import type { CallStatus, RunResult } from "../contract.js";
import type { ModelUsage, StopReason } from "./model-adapter.js";
import type { AgentStatus } from "./stop-policy.js";

export type AgentEvent =
  | { readonly type: "turn-start"; readonly step: number; readonly messages: number }
  | {
      readonly type: "model-response";
      readonly step: number;
      readonly stopReason: StopReason;
      readonly rawStopReason: string | null;
      readonly usage: ModelUsage;
      /** Usage of every request so far, this one included. */
      readonly totalUsage: ModelUsage;
      readonly toolCalls: number;
      readonly text: string;
      /** The model that answered and the provider's response id, when the provider said. */
      readonly model?: string | undefined;
      readonly responseId?: string | undefined;
    }
  | {
      readonly type: "tool-call-start";
      readonly step: number;
      readonly callId: string;
      readonly name: string;
      readonly tool: string | undefined;
    }
  | {
      readonly type: "tool-call-end";
      readonly step: number;
      readonly callId: string;
      readonly name: string;
      readonly tool: string | undefined;
      readonly status: CallStatus;
      readonly isError: boolean;
      readonly durationMs: number;
    }
  /** A tool call in a turn that did not end in `tool_use` (cut, refused...): it is never run. */
  | {
      readonly type: "tool-call-dropped";
      readonly step: number;
      readonly callId: string;
      readonly name: string;
      readonly reason: string;
    }
  | { readonly type: "run-program-start"; readonly step: number; readonly callId: string; readonly sourceBytes: number }
  | { readonly type: "run-program-end"; readonly step: number; readonly callId: string; readonly result: RunResult }
  | { readonly type: "stop"; readonly step: number; readonly status: AgentStatus; readonly reason: string | undefined };

export type AgentEventListener = (event: AgentEvent) => void;
