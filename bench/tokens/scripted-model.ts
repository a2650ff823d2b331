// A ModelAdapter whose turns come from a scripted policy, for `runAgent`. The policy is an
// async function that asks for tool calls and awaits their results as the loop ran them; each
// `createTurn` records the exact request body (`buildAnthropicRequest`) with its token counts,
// hands the previous turn's results to the policy, and answers with the policy's next move.

import { buildAnthropicRequest } from "../../src/agent/anthropic-adapter.js";
import type { ModelAdapter, ModelRequest, ModelTurn } from "../../src/agent/model-adapter.js";
import type { ContentBlock, ToolCallBlock, ToolResultBlock } from "../../src/agent/transcript.js";
import { countTokens } from "../../src/search/token-count.js";
import { countRequestTokens, type AnthropicRequestBody } from "./count-request.js";
import type { BenchModel } from "./settings.js";

/** One request the model received, with what it cost and what it answered. */
export interface RequestRecord {
  readonly index: number;
  /** The body as the Anthropic adapter would send it (messages shared with later records, never mutated). */
  readonly body: AnthropicRequestBody;
  /** Body tokens plus the hidden tool-use system prompt. */
  readonly inputTokens: number;
  /** Tokens the model typed in its response: text, tool names and tool arguments. */
  readonly outputTokens: number;
  /** `tool_calls` when the response called tools, `final` for the answer. */
  readonly response: "tool_calls" | "final";
  readonly toolCallCount: number;
  /** The response needed more output tokens than the request allowed: a real model would be cut. */
  readonly overOutputLimit: boolean;
}

/** A call the policy makes, under the provider name it was offered (e.g. `orders__search`). */
export interface ModelCall {
  readonly name: string;
  readonly input: Record<string, unknown>;
}

/** The policy's handle on the loop: one `turn` per model response that calls tools. */
export interface PolicyTurns {
  /** Sends one turn calling `calls`; resolves with their results, in call order, as the model reads them. */
  turn(calls: readonly ModelCall[]): Promise<ToolResultBlock[]>;
}

/** A scripted model: makes turns, then resolves with the final answer text. */
export type ScriptedPolicy = (turns: PolicyTurns) => Promise<string>;

/** What `createTurn` counts before the policy moves. */
type RequestCount = Pick<RequestRecord, "body" | "inputTokens">;

type Move =
  | { readonly kind: "calls"; readonly blocks: ToolCallBlock[] }
  | { readonly kind: "final"; readonly text: string }
  | { readonly kind: "failed"; readonly error: unknown };

/** See the module comment. One instance serves one run. */
export class ScriptedModel implements ModelAdapter {
  readonly provider = "anthropic";
  readonly records: RequestRecord[] = [];
  readonly #policy: ScriptedPolicy;
  readonly #model: BenchModel;
  #started = false;
  #callCount = 0;
  #awaitingResults: ((results: ToolResultBlock[]) => void) | undefined;
  #moves: Move[] = [];
  #moveReady: (() => void) | undefined;
  /** Time spent inside `createTurn` (counting, policy): not part of the system under test. */
  harnessMs = 0;

  constructor(policy: ScriptedPolicy, model: BenchModel) {
    this.#policy = policy;
    this.#model = model;
  }

  async createTurn(request: ModelRequest): Promise<ModelTurn> {
    const started = performance.now();
    const record = this.#count(request);
    if (!this.#started) {
      this.#started = true;
      const turns: PolicyTurns = { turn: (calls) => this.#requestCalls(calls) };
      this.#policy(turns).then(
        (text) => this.#push({ kind: "final", text }),
        (error: unknown) => this.#push({ kind: "failed", error }),
      );
    } else {
      const deliver = this.#awaitingResults;
      this.#awaitingResults = undefined;
      const last = request.messages.at(-1);
      deliver?.((last?.content ?? []).filter((block): block is ToolResultBlock => block.type === "tool_result"));
    }
    const move = await this.#nextMove();
    let turn: ModelTurn;
    if (move.kind === "failed") {
      this.harnessMs += performance.now() - started;
      throw move.error;
    }
    if (move.kind === "calls") {
      const output = move.blocks.reduce(
        (sum, block) => sum + countTokens(block.name) + countTokens(JSON.stringify(block.input)),
        0,
      );
      this.#finishRecord(record, request, output, "tool_calls", move.blocks.length);
      turn = {
        content: move.blocks,
        stopReason: "tool_use",
        rawStopReason: "tool_use",
        usage: { input: record.inputTokens, output, cacheRead: 0, cacheCreation: 0 },
      };
    } else {
      const output = countTokens(move.text);
      this.#finishRecord(record, request, output, "final", 0);
      const content: ContentBlock[] = [{ type: "text", text: move.text }];
      turn = {
        content,
        stopReason: "end_turn",
        rawStopReason: "end_turn",
        usage: { input: record.inputTokens, output, cacheRead: 0, cacheCreation: 0 },
      };
    }
    this.harnessMs += performance.now() - started;
    return turn;
  }

  #requestCalls(calls: readonly ModelCall[]): Promise<ToolResultBlock[]> {
    if (calls.length === 0) return Promise.reject(new Error("A turn needs at least one call."));
    return new Promise((resolve) => {
      this.#awaitingResults = resolve;
      this.#push({
        kind: "calls",
        blocks: calls.map((call) => ({
          type: "tool_call",
          id: `toolu_bench_${String(++this.#callCount).padStart(5, "0")}`,
          name: call.name,
          input: call.input,
        })),
      });
    });
  }

  #push(move: Move): void {
    this.#moves.push(move);
    this.#moveReady?.();
    this.#moveReady = undefined;
  }

  async #nextMove(): Promise<Move> {
    while (this.#moves.length === 0) await new Promise<void>((resolve) => (this.#moveReady = resolve));
    return this.#moves.shift()!;
  }

  #count(request: ModelRequest): RequestCount {
    const body = buildAnthropicRequest(request, { model: this.#model.id });
    return { body, inputTokens: countRequestTokens(body, this.#model) };
  }

  #finishRecord(
    counted: RequestCount,
    request: ModelRequest,
    outputTokens: number,
    response: RequestRecord["response"],
    toolCallCount: number,
  ): void {
    this.records.push({
      index: this.records.length,
      ...counted,
      outputTokens,
      response,
      toolCallCount,
      overOutputLimit: outputTokens > request.maxTokens,
    });
  }
}
