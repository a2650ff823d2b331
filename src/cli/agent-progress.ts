// Shows an agent run as it goes. On a terminal: one status line rewritten in place with \r
// (step, tool calls in flight, tokens so far). Elsewhere: one plain line per event, for logs.
// Printing only: it reads AgentEvents and never changes the run.

import type { AgentEvent } from "../agent/agent-events.js";
import { ZERO_USAGE, type ModelUsage } from "../agent/model-adapter.js";

export interface ProgressOutput {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

export interface AgentProgressView {
  readonly onEvent: (event: AgentEvent) => void;
  /** Clears the status line, so what follows starts on a clean line. */
  finish(): void;
}

/** A progress view writing to `output` (stderr in the CLI). */
export function createAgentProgressView(output: ProgressOutput): AgentProgressView {
  return output.isTTY === true ? statusLineView(output) : lineView(output);
}

function statusLineView(output: ProgressOutput): AgentProgressView {
  let step = 0;
  let inFlight = 0;
  let finished = 0;
  let usage: ModelUsage = ZERO_USAGE;
  let phase = "starting";
  let shown = false;
  const render = (): void => {
    const line = `step ${step} · ${phase} · ${inFlight} call${inFlight === 1 ? "" : "s"} in flight, ${finished} done · ${formatUsage(usage)}`;
    const width = Math.max(20, (output.columns ?? 100) - 1);
    output.write(`\r\x1b[2K${line.length > width ? `${line.slice(0, width - 1)}…` : line}`);
    shown = true;
  };
  return {
    onEvent(event) {
      switch (event.type) {
        case "turn-start":
          step = event.step;
          phase = "waiting for the model";
          break;
        case "model-response":
          usage = event.totalUsage;
          phase =
            event.toolCalls > 0
              ? `running ${event.toolCalls} tool call${event.toolCalls === 1 ? "" : "s"}`
              : `model stopped (${event.stopReason})`;
          break;
        case "tool-call-start":
        case "run-program-start":
          inFlight++;
          break;
        case "tool-call-end":
        case "run-program-end":
          inFlight--;
          finished++;
          break;
        case "tool-call-dropped":
          break;
        case "stop":
          phase = event.status;
          break;
      }
      render();
    },
    finish() {
      if (shown) output.write("\r\x1b[2K");
    },
  };
}

function lineView(output: ProgressOutput): AgentProgressView {
  const line = (text: string): void => {
    output.write(`${text}\n`);
  };
  return {
    onEvent(event) {
      switch (event.type) {
        case "turn-start":
          line(`step ${event.step}: asking the model (${event.messages} messages)`);
          break;
        case "model-response":
          line(
            `step ${event.step}: ${event.rawStopReason ?? event.stopReason}, ${event.toolCalls} tool calls; ${formatUsage(event.totalUsage)}`,
          );
          break;
        case "tool-call-start":
          break;
        case "tool-call-end":
          line(`  ${event.tool ?? event.name} → ${event.status} (${event.durationMs} ms)`);
          break;
        case "tool-call-dropped":
          line(`  ${event.name} not run: ${event.reason}`);
          break;
        case "run-program-start":
          line(`  run_program: ${event.sourceBytes} bytes of source`);
          break;
        case "run-program-end": {
          const { result } = event;
          line(
            `  run_program → ${result.ok ? "ok" : `error ${result.error?.code ?? ""}`}: ${result.stats.toolCalls} calls in ${Math.round(result.stats.wallMs)} ms`,
          );
          break;
        }
        case "stop":
          line(`stopped: ${event.status}${event.reason === undefined ? "" : ` (${event.reason})`}`);
          break;
      }
    },
    finish() {},
  };
}

/** `1,234 in (900 cached) / 56 out tokens`. */
export function formatUsage(usage: ModelUsage): string {
  const cached = usage.cacheRead > 0 ? ` (${usage.cacheRead.toLocaleString("en-US")} cached)` : "";
  return `${usage.input.toLocaleString("en-US")} in${cached} / ${usage.output.toLocaleString("en-US")} out tokens`;
}
