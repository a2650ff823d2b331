// The `hosted` row of the token benchmark: the provider runs the model's program (Anthropic
// code execution with programmatic tool calling) and every call it makes comes back through
// runAgent's hosted path and Switchyard's pipeline. Offline, the container is emulated: the
// task's own program runs in this process against a `tools` proxy, and each burst of calls it
// makes while blocked becomes one response of `tool_use` blocks with a `caller`, as the API
// returns them. Request bodies are built by the real adapter (`buildAnthropicRequest`, mode
// `hosted`). Counting, stated once:
// - output: the program's source (the `server_tool_use` input) and the final answer text; the
//   container's tool calls are not model output;
// - input: each request body without the hosted calls' `tool_use`/`tool_result` blocks (they
//   go to the container, not into Claude's context, per the programmatic tool calling docs;
//   a cache breakpoint on one of them counts on the context block before it), plus the
//   program's stdout on the final request, which the model reads. Every continuation
//   request is counted as a full request over the rest of the context: an upper bound, since
//   a continuation that only feeds the container may not be billed as model input.
// The code execution tool's own hidden prompt and container-hours are not counted.

import { transformSync } from "esbuild";
import { buildAnthropicRequest } from "../../src/agent/anthropic-adapter.js";
import { AGENT_MODES } from "../../src/agent/agent-toolset.js";
import type { ModelAdapter, ModelRequest, ModelTurn } from "../../src/agent/model-adapter.js";
import { toProviderToolName } from "../../src/agent/provider-tool-names.js";
import { runAgent } from "../../src/agent/run-agent.js";
import type { ContentBlock, ToolCallBlock, ToolResultBlock } from "../../src/agent/transcript.js";
import { countTokens } from "../../src/search/token-count.js";
import { Switchyard } from "../../src/switchyard.js";
import { countRequestTokens, type AnthropicRequestBody } from "./count-request.js";
import type { ModeInfo, ModeRun, RunModeOptions } from "./mode-run.js";
import type { RequestRecord } from "./scripted-model.js";
import { type BenchModel, MAX_OUTPUT_TOKENS, SYSTEM_PROMPT } from "./settings.js";
import { canonicalJson, type BenchTask } from "./task.js";

/** The mode's entry in the benchmark's mode list. */
export const HOSTED_MODE: ModeInfo = {
  id: "hosted",
  family: "hosted",
  catalog: "task",
  loading: "all",
  api: "plain",
  label: "hosted program",
  description:
    "The provider runs the same program (Anthropic code execution); each call it makes returns through Switchyard's pipeline.",
};

/**
 * Largest hosted result, in bytes: as large as the benchmark's direct limit, since a hosted
 * program reads results whole and the provider sets no budget (see DIRECT_RESULT_LIMIT_BYTES).
 */
export const HOSTED_RESULT_LIMIT_BYTES = 4 * 1024 * 1024;

const PROGRAM_ID = "srvtoolu_bench_program";
const CODE_EXECUTION = "code_execution_20260120";

/** Runs `task` in hosted mode through `runAgent`, against a fresh world, and grades the answer. */
export async function runHostedMode(task: BenchTask, options: RunModeOptions): Promise<ModeRun> {
  const world = task.createWorld();
  const problems: string[] = [];
  const yard = new Switchyard({
    tools: [...world.tools],
    results: { maxDirectResultBytes: HOSTED_RESULT_LIMIT_BYTES, maxHostedResultBytes: HOSTED_RESULT_LIMIT_BYTES },
  });
  let answer: unknown;
  let toolResultBytes = 0;
  yard.trace.subscribe((event) => {
    if (event.type === "tool-call-end") toolResultBytes += event.bytesOut;
  });
  const model = new HostedProgramModel(world.program, options.model, (output) => {
    try {
      answer = world.answerFromOutput(output);
      return world.render(answer);
    } catch (error) {
      problems.push(`no answer from the program output: ${(error as Error).message.slice(0, 200)}`);
      return "The program did not produce a usable result, so I cannot answer reliably.";
    }
  });
  const started = performance.now();
  const result = await runAgent({
    yard,
    model,
    task: task.question,
    mode: "hosted",
    system: SYSTEM_PROMPT,
    maxSteps: 10_000,
    maxTokens: MAX_OUTPUT_TOKENS,
  });
  const wallMs = performance.now() - started;
  await yard.close();
  if (result.status !== "completed")
    problems.push(`the agent run ended ${result.status}: ${result.stop?.message ?? ""}`);
  if (model.programError !== undefined) problems.push(`the hosted program failed: ${model.programError}`);
  for (const record of model.records) {
    if (record.overOutputLimit)
      problems.push(
        `request ${record.index + 1} needs ${record.outputTokens} output tokens, over max_tokens ${MAX_OUTPUT_TOKENS}`,
      );
  }
  const finalText = result.finalText ?? "";
  const answerMatches = answer !== undefined && canonicalJson(answer) === canonicalJson(world.truth);
  if (answer !== undefined && !answerMatches) problems.push("the answer differs from the truth");
  const checkerProblems = world.checkAnswer(finalText);
  problems.push(...checkerProblems.map((problem) => `checker: ${problem}`));
  const worldProblems = world.verifyWorld?.() ?? [];
  problems.push(...worldProblems);
  return {
    taskId: task.id,
    mode: HOSTED_MODE.id,
    records: model.records,
    answer,
    truth: world.truth,
    correct:
      answerMatches && checkerProblems.length === 0 && worldProblems.length === 0 && result.status === "completed",
    grade: { answerMatches, checkerProblems, worldProblems },
    problems,
    finalText,
    toolWallMs: Math.max(0, wallMs - model.harnessMs),
    toolCalls: model.hostedCalls,
    catalogTools: world.tools.length,
    toolResultBytes,
    programOutputBytes: model.programOutputBytes,
  };
}

type Move =
  | { readonly kind: "calls"; readonly calls: readonly PendingCall[] }
  | { readonly kind: "done"; readonly output: unknown }
  | { readonly kind: "failed"; readonly error: string };

interface PendingCall {
  readonly block: ToolCallBlock;
  readonly settle: (result: ToolResultBlock | undefined) => void;
}

/**
 * A ModelAdapter that plays Claude with the code execution tool: its first response starts the
 * program, later ones carry the program's next burst of calls, and the last one its result
 * and the answer. Records each request as the token benchmark counts it (see module comment).
 */
class HostedProgramModel implements ModelAdapter {
  readonly provider = "anthropic";
  readonly modes = AGENT_MODES;
  readonly records: RequestRecord[] = [];
  harnessMs = 0;
  hostedCalls = 0;
  programError: string | undefined;
  readonly #source: string;
  readonly #profile: BenchModel;
  readonly #answer: (output: unknown) => string;
  #started = false;
  #moves: Move[] = [];
  #moveReady: (() => void) | undefined;
  #waiting: readonly PendingCall[] = [];
  #round: PendingCall[] = [];

  /** Bytes of the program's stdout, which the model reads before it answers. */
  programOutputBytes = 0;

  constructor(source: string, profile: BenchModel, answer: (output: unknown) => string) {
    this.#source = source;
    this.#profile = profile;
    this.#answer = answer;
  }

  async createTurn(request: ModelRequest): Promise<ModelTurn> {
    const started = performance.now();
    const body = buildAnthropicRequest(request, { model: this.#profile.id });
    const content: ContentBlock[] = [];
    let outputTokens = 0;
    if (!this.#started) {
      this.#started = true;
      const input = { code: this.#source };
      content.push({
        type: "provider",
        provider: "anthropic",
        block: { type: "server_tool_use", id: PROGRAM_ID, name: "code_execution", input, caller: { type: "direct" } },
      });
      outputTokens += countTokens(JSON.stringify(input));
      this.#startProgram();
    } else {
      this.#deliver(request);
    }
    this.harnessMs += performance.now() - started;
    const move = await this.#nextMove();
    const resumed = performance.now();
    let turn: ModelTurn;
    let extraInput = 0;
    if (move.kind === "calls") {
      content.push(...move.calls.map((call) => call.block));
      this.#waiting = move.calls;
      turn = this.#turn(content, "tool_use", 0, outputTokens);
    } else {
      const stdout = move.kind === "done" ? JSON.stringify(move.output) : "";
      this.programOutputBytes = Buffer.byteLength(stdout);
      if (move.kind === "failed") this.programError = move.error;
      content.push({
        type: "provider",
        provider: "anthropic",
        block: {
          type: "code_execution_tool_result",
          tool_use_id: PROGRAM_ID,
          content: {
            type: "code_execution_result",
            stdout,
            stderr: move.kind === "failed" ? move.error : "",
            return_code: move.kind === "failed" ? 1 : 0,
            content: [],
          },
        },
      });
      const text =
        move.kind === "done" ? this.#answer(move.output) : "The program failed, so I cannot answer reliably.";
      content.push({ type: "text", text });
      // The model reads the program's output before it answers.
      extraInput = countTokens(stdout);
      outputTokens += countTokens(text);
      turn = this.#turn(content, "end_turn", 0, outputTokens);
    }
    // The body as Claude's context holds it: what the cache model and the counts see.
    const context = withoutHostedTraffic(body);
    const inputTokens = countRequestTokens(context, this.#profile) + extraInput;
    this.records.push({
      index: this.records.length,
      body: context,
      inputTokens,
      outputTokens,
      response: move.kind === "calls" ? "tool_calls" : "final",
      toolCallCount: move.kind === "calls" ? move.calls.length : 0,
      overOutputLimit: outputTokens > request.maxTokens,
    });
    this.harnessMs += performance.now() - resumed;
    return { ...turn, usage: { input: inputTokens, output: outputTokens, cacheRead: 0, cacheCreation: 0 } };
  }

  #turn(content: ContentBlock[], stopReason: "tool_use" | "end_turn", input: number, output: number): ModelTurn {
    return {
      content,
      stopReason,
      rawStopReason: stopReason,
      usage: { input, output, cacheRead: 0, cacheCreation: 0 },
      container: { provider: "anthropic", id: "container_bench", expiresAt: "2999-01-01T00:00:00.000Z" },
    };
  }

  /** Hands the loop's results to the calls the program is waiting on. */
  #deliver(request: ModelRequest): void {
    const results = new Map<string, ToolResultBlock>();
    for (const block of request.messages.at(-1)?.content ?? [])
      if (block.type === "tool_result") results.set(block.callId, block);
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const call of waiting) call.settle(results.get(call.block.id));
  }

  /** Runs the task's program in this process, its `tools` calls turned into hosted calls. */
  #startProgram(): void {
    let program: (tools: unknown, console: unknown) => Promise<unknown>;
    try {
      const { code } = transformSync(`const __program = async (tools: any, console: any) => {\n${this.#source}\n};`, {
        loader: "ts",
        target: "es2022",
      });
      program = new Function(`${code}\nreturn __program;`)();
    } catch (error) {
      this.#push({ kind: "failed", error: (error as Error).message });
      return;
    }
    const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined, info: () => undefined };
    program(
      toolsProxy([], (path, input) => this.#call(path, input)),
      quiet,
    ).then(
      (output) => this.#push({ kind: "done", output: output === undefined ? null : output }),
      (error: unknown) => this.#push({ kind: "failed", error: String((error as Error)?.message ?? error) }),
    );
  }

  /**
   * One call of the program: queued into the current burst, which is sent once the program has
   * issued everything it can without an answer (the next macrotask: in-process, deterministic).
   */
  #call(path: string, input: unknown): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const id = `toolu_hosted_${String(++this.hostedCalls).padStart(5, "0")}`;
      const block: ToolCallBlock = {
        type: "tool_call",
        id,
        name: toProviderToolName(path),
        input: input ?? {},
        hostedCaller: {
          provider: "anthropic",
          toolId: PROGRAM_ID,
          wire: { type: CODE_EXECUTION, tool_id: PROGRAM_ID },
        },
      };
      const settle = (result: ToolResultBlock | undefined): void => {
        if (result === undefined) {
          reject(Object.assign(new Error("No result came back."), { code: "CANCELLED" }));
          return;
        }
        if (!result.isError) {
          resolve(parseResult(result.content));
          return;
        }
        const match = /^error (\S+): ([\s\S]*)$/.exec(result.content);
        reject(
          Object.assign(new Error(match?.[2] ?? result.content), {
            name: "ToolCallError",
            code: match?.[1] ?? "TOOL_ERROR",
          }),
        );
      };
      if (this.#round.length === 0) setImmediate(() => this.#flush());
      this.#round.push({ block, settle });
    });
  }

  #flush(): void {
    const calls = this.#round;
    this.#round = [];
    if (calls.length > 0) this.#push({ kind: "calls", calls });
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
}

/** A result as the program reads it: JSON parsed, a plain string as is. */
function parseResult(content: string): unknown {
  try {
    return JSON.parse(content);
  } catch {
    return content;
  }
}

/** `tools.a.b(input)` → `call("a.b", input)`, for any depth of path. */
function toolsProxy(path: readonly string[], call: (path: string, input: unknown) => Promise<unknown>): unknown {
  return new Proxy(() => undefined, {
    get: (_target, key) => (typeof key === "string" ? toolsProxy([...path, key], call) : undefined),
    apply: (_target, _this, args: unknown[]) => call(path.join("."), args[0]),
  });
}

/**
 * The body as Claude's context holds it: the hosted program's calls and their results go to
 * the container. A cache breakpoint the adapter put on a removed block moves to the last block
 * kept before it: the provider caches the prompt up to the breakpoint, and of that prompt the
 * context holds exactly the kept blocks (dropping the marker instead would bill the program's
 * source as uncached input on every continuation).
 */
export function withoutHostedTraffic(body: AnthropicRequestBody): AnthropicRequestBody {
  type Message = AnthropicRequestBody["messages"][number];
  type Block = Exclude<Message["content"], string>[number];
  const hostedIds = new Set<string>();
  const messages: Message[] = [];
  // The content of the last message kept, filled in place: a marker may move onto its last block.
  let previous: Block[] | undefined;
  for (const message of body.messages) {
    if (typeof message.content === "string") {
      messages.push(message);
      previous = undefined;
      continue;
    }
    const content: Block[] = [];
    for (const block of message.content) {
      const hosted =
        (block.type === "tool_use" && block.caller !== undefined && block.caller.type !== "direct") ||
        (block.type === "tool_result" && hostedIds.has(block.tool_use_id));
      if (!hosted) {
        content.push(block);
        continue;
      }
      if (block.type === "tool_use") hostedIds.add(block.id);
      const marker = "cache_control" in block ? block.cache_control : undefined;
      const before = content.length > 0 ? content : previous;
      if (marker != null && before !== undefined)
        before[before.length - 1] = { ...before[before.length - 1]!, cache_control: marker } as Block;
    }
    if (content.length === 0) continue;
    messages.push({ ...message, content } as Message);
    previous = content;
  }
  return { ...body, messages };
}
