import { afterEach, describe, expect, it } from "vitest";
import { createPriceTable, type ModelPrice } from "../../src/agent/model-pricing.js";
import { startScriptedModelServer, type RecordedRequest, type ScriptedModelServer } from "../../src/testing/index.js";
import { calibrationSamples } from "../../bench/tokens/calibration.js";
import { LiveModeUnavailableError, renderLiveMarkdown, runLive, spread } from "../../bench/tokens/live.js";
import { singleLookup } from "../../bench/tokens/tasks/single-lookup.js";

let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const world = singleLookup.createWorld();
const RIGHT = world.render(world.truth);
const WRONG = "About 500 units, I think.";

/**
 * A model behind the real API shapes: direct mode calls inventory.getStock, programmatic mode
 * sends the task's program; then it answers. `answers` decides each final text in turn.
 */
function scriptedModel(answers: string[]) {
  return (request: RecordedRequest) => {
    const body = request.body;
    const names: string[] = (body.tools ?? []).map((tool: any) => tool.name ?? tool.function?.name);
    const messages: any[] = body.messages;
    const answered =
      request.protocol === "anthropic"
        ? messages.some(
            (message) =>
              Array.isArray(message.content) && message.content.some((block: any) => block.type === "tool_result"),
          )
        : messages.some((message) => message.role === "tool");
    const usage = { inputTokens: 400, cacheCreationTokens: 1000, cacheReadTokens: 2000, outputTokens: 100 };
    if (answered) return { content: [{ type: "text" as const, text: answers.shift() ?? RIGHT }], usage };
    return names.includes("run_program")
      ? { content: [{ type: "tool_use" as const, name: "run_program", input: { code: world.program } }], usage }
      : { content: [{ type: "tool_use" as const, name: "inventory__getStock", input: { sku: "SKU-4471" } }], usage };
  };
}

const ROW: ModelPrice = {
  id: "claude-scripted",
  provider: "anthropic",
  label: "Scripted",
  inputPerMTok: 2,
  cacheWritePerMTok: 2.5,
  cacheReadPerMTok: 0.1,
  outputPerMTok: 10,
  contextWindowTokens: 1_000_000,
  minCacheableTokens: 1024,
  toolUseSystemPromptTokens: 346,
  source: "https://example.com/prices",
  checked: "2026-12-01",
};

describe("live mode, through the real SDK clients against the scripted model server", () => {
  it("runs n trials per task and mode, grades each answer with the task's checker, bills it, and has the provider count the calibration bodies", async () => {
    server = await startScriptedModelServer({ script: scriptedModel([RIGHT, WRONG, RIGHT]), apiKey: "fake-key" });
    const prices = createPriceTable({ prices: [ROW] });
    const result = await runLive({
      tasks: [singleLookup],
      modes: ["direct-grouped", "programmatic"],
      trials: 3,
      model: "claude-scripted",
      provider: "anthropic",
      prices,
      maxSpendUsd: 10,
      apiKey: "fake-key",
      baseURL: server.url,
      calibration: calibrationSamples([]),
    });
    expect(result.trials).toHaveLength(6);
    expect(result.trials.map((trial) => trial.status)).toEqual(Array(6).fill("completed"));
    // The second direct trial answered wrong: the checker caught it.
    expect(result.trials.map((trial) => trial.correct)).toEqual([true, false, true, true, true, true]);
    expect(result.trials[1]!.problems.join()).toMatch(/checker: does not give the 438 units available/);
    // Every request went to the model id given, with the key, through the SDK.
    const turns = server.turnRequests;
    expect(turns).toHaveLength(12);
    expect(turns.every((request) => request.body.model === "claude-scripted")).toBe(true);
    // Two requests per trial, each billed 400 input + 1,000 written + 2,000 read + 100 output.
    const perTrial = (2 * (400 * 2 + 1000 * 2.5 + 2000 * 0.1 + 100 * 10)) / 1e6;
    expect(result.trials[0]!.cost.totalUsd).toBeCloseTo(perTrial, 12);
    expect(result.spentUsd).toBeCloseTo(6 * perTrial, 12);
    expect(result.trials[0]!.usage).toEqual({ input: 6800, output: 200, cacheRead: 4000, cacheCreation: 2000 });
    expect(result.trials[0]!.estimatedInput).toBeGreaterThan(1000);
    // count_tokens was asked for the published examples (the scripted server answers a quarter of the bytes).
    expect(server.requests.filter((request) => request.endpoint === "count_tokens")).toHaveLength(2);
    expect(result.providerCounts.get("docs: get_weather tool + one question")).toBeGreaterThan(0);

    const markdown = renderLiveMarkdown(result, () => ({ inputTokens: 1824, billedUsd: 0.004 }), [
      { name: "docs: get_weather tool + one question", counted: 422 },
    ]);
    expect(markdown).toContain("# Live run: claude-scripted (anthropic)");
    expect(markdown).toContain("Price row: claude-scripted (Scripted): $2 input");
    expect(markdown).toMatch(
      /\| single-lookup \| direct, grouped \| 3\/3 \| 2\/3 \| 2\.0 \| 6,800 ± 0 \| 200 ± 0 \| \$0\.0090 ± \$0\.0000 \|/,
    );
    expect(markdown).toMatch(/\| single-lookup \| program \| 3\/3 \| 3\/3 \|/);
    expect(markdown).toMatch(/\| docs: get_weather tool \+ one question \| 422 \| \d+ \|/);
    expect(markdown).toMatch(/single-lookup \/ direct-grouped \/ trial 2: checker: does not give/);
  });

  it("stops at the spend cap: the run that crosses it is stopped, later ones never start", async () => {
    server = await startScriptedModelServer({ script: scriptedModel([]), apiKey: "fake-key" });
    const result = await runLive({
      tasks: [singleLookup],
      modes: ["direct-grouped"],
      trials: 4,
      model: "claude-scripted",
      provider: "anthropic",
      prices: createPriceTable({ prices: [ROW] }),
      // One request costs $0.0045: the cap is crossed by the first request of the second trial.
      maxSpendUsd: 0.01,
      apiKey: "fake-key",
      baseURL: server.url,
    });
    expect(result.trials.map((trial) => trial.status)).toEqual(["completed", "cancelled", "not run", "not run"]);
    expect(result.trials[1]!.problems[0]).toMatch(/spend cap of \$0\.0100 reached during this run/);
    expect(result.capReached).toBe(true);
    expect(server.turnRequests).toHaveLength(3);
    expect(result.spentUsd).toBeLessThan(0.0136);
  });

  it("runs OpenAI models through the OpenAI SDK, pricing the cached input it reports", async () => {
    server = await startScriptedModelServer({ script: scriptedModel([]), apiKey: "fake-key" });
    const result = await runLive({
      tasks: [singleLookup],
      modes: ["direct-grouped"],
      trials: 1,
      model: "gpt-5.6-terra",
      provider: "openai",
      prices: createPriceTable(),
      maxSpendUsd: 1,
      apiKey: "fake-key",
      baseURL: server.openaiBaseURL,
    });
    expect(result.trials[0]).toMatchObject({ status: "completed", correct: true });
    expect(server.turnRequests[0]!.path).toBe("/v1/chat/completions");
    expect(result.trials[0]!.usage.cacheRead).toBe(4000);
    expect(result.trials[0]!.cost.cacheReadUsd).toBeCloseTo((4000 * 0.2) / 1e6, 12);
  });

  it.each([
    { provider: "anthropic" as const, model: "claude-scripted", path: "/v1/messages" },
    { provider: "openai" as const, model: "gpt-5.6-terra", path: "/v1/responses" },
  ])(
    "runs the hosted mode on $provider: the provider's program calls the tool through the pipeline, and the answer is graded",
    async ({ provider, model, path }) => {
      // The provider's program makes the task's call; once its result came back, the program ends and the model answers.
      const hostedModel = (request: RecordedRequest) => {
        const body = request.body;
        const answered =
          request.protocol === "anthropic"
            ? JSON.stringify(body.messages).includes('"tool_result"')
            : body.input.some((item: any) => item.type === "function_call_output");
        if (answered)
          return {
            content: [
              { type: "hosted_program_result" as const, id: "prog_live", output: JSON.stringify(world.truth) },
              { type: "text" as const, text: RIGHT },
            ],
          };
        return {
          content: [
            { type: "hosted_program" as const, id: "prog_live", code: "inventory.getStock" },
            {
              type: "tool_use" as const,
              name: "inventory__getStock",
              input: { sku: "SKU-4471" },
              hostedBy: "prog_live",
            },
          ],
        };
      };
      server = await startScriptedModelServer({ script: hostedModel, apiKey: "fake-key" });
      const result = await runLive({
        tasks: [singleLookup],
        modes: ["hosted"],
        trials: 1,
        model,
        provider,
        prices: createPriceTable({ prices: [ROW] }),
        maxSpendUsd: 1,
        apiKey: "fake-key",
        baseURL: provider === "anthropic" ? server.url : server.openaiBaseURL,
      });
      expect(result.trials[0]).toMatchObject({ mode: "hosted", status: "completed", correct: true, requests: 2 });
      const [first, second] = server.turnRequests;
      expect(first!.path).toBe(path);
      const tools = first!.body.tools as { type?: string; name?: string; allowed_callers?: string[] }[];
      if (provider === "anthropic") {
        expect(tools[0]).toEqual({ type: "code_execution_20260120", name: "code_execution" });
        expect(JSON.stringify(second!.body.messages)).toContain('"tool_result"');
      } else {
        expect(tools[0]).toEqual({ type: "programmatic_tool_calling" });
        expect(tools.find((tool) => tool.name === "inventory__getStock")?.allowed_callers).toContain("programmatic");
        const output = second!.body.input.find((item: any) => item.type === "function_call_output");
        expect(JSON.parse(output.output)).toMatchObject({ sku: "SKU-4471" });
      }
      expect(result.trials[0]!.estimatedInput).toBeGreaterThan(0);
    },
  );

  it("refuses to start without a key, or without a price row for the spend cap, before sending anything", async () => {
    server = await startScriptedModelServer({ script: scriptedModel([]) });
    const base = {
      tasks: [singleLookup],
      provider: "anthropic" as const,
      prices: createPriceTable(),
      maxSpendUsd: 1,
      baseURL: server.url,
    };
    await expect(runLive({ ...base, model: "claude-sonnet-5-5", apiKey: "" })).rejects.toThrow(
      LiveModeUnavailableError,
    );
    await expect(runLive({ ...base, model: "claude-unpriced", apiKey: "k" })).rejects.toThrow(
      /No price row for model "claude-unpriced"/,
    );
    expect(server.requests).toHaveLength(0);
  });

  it("reports mean and sample standard deviation", () => {
    expect(spread([1, 2, 3])).toEqual({ mean: 2, sd: 1, min: 1, max: 3 });
    expect(spread([5])).toEqual({ mean: 5, sd: 0, min: 5, max: 5 });
  });
});
