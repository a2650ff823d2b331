// What an agent run reports while it works, for live views and logs. Events are noun-then-verb
// with start/end pairs; a listener that throws is ignored, so a broken view cannot break a run.

import type { CallerKind, CallStatus, HostedCaller, RunResult } from "../contract.js";
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
      /** `direct` for a model turn's call, `hosted-program` for a call the provider's program made. */
      readonly caller: CallerKind;
      readonly hostedCaller?: HostedCaller;
    }
  | {
      readonly type: "tool-call-end";
      readonly step: number;
      readonly callId: string;
      readonly name: string;
      readonly tool: string | undefined;
      readonly caller: CallerKind;
      readonly hostedCaller?: HostedCaller;
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
  /** The provider started a code execution container; later turns reuse it. */
  | { readonly type: "container-start"; readonly step: number; readonly provider: string; readonly containerId: string }
  /**
   * The container expired: the next request starts a new one. `lostCalls` are the hosted
   * program's calls whose results could not be delivered (they ran, the program did not finish).
   */
  | {
      readonly type: "container-expired";
      readonly step: number;
      readonly provider: string;
      readonly containerId: string;
      readonly lostCalls: readonly string[];
    }
  | { readonly type: "stop"; readonly step: number; readonly status: AgentStatus; readonly reason: string | undefined };

export type AgentEventListener = (event: AgentEvent) => void;
