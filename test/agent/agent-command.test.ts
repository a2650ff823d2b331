import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Command } from "commander";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SWEEP_PROGRAM } from "../../examples/orders/sweep-program.js";
import { registerAgentCommand, type AgentCommandIO } from "../../src/cli/agent-command.js";
import { startServer } from "./agent-fixtures.js";

const TOOLS_MODULE = fileURLToPath(new URL("../../examples/agent/orders-tools-module.ts", import.meta.url));

function capture(env: Record<string, string>, tty = false) {
  const out: string[] = [];
  const err: string[] = [];
  let exitCode: number | undefined;
  const io: AgentCommandIO = {
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text), isTTY: tty, columns: 120 },
    env,
    setExitCode: (code) => {
      exitCode = code;
    },
  };
  const program = new Command("switchyard").exitOverride();
  registerAgentCommand(program, io);
  return { program, stdout: () => out.join(""), stderr: () => err.join(""), exitCode: () => exitCode };
}

let folder: string | undefined;
afterEach(async () => {
  if (folder !== undefined) await rm(folder, { recursive: true, force: true });
  folder = undefined;
});

describe("switchyard agent", () => {
  it("runs the loop over a tools module, prints plain progress lines off a terminal, and saves the transcript", async () => {
    const server = await startServer({
      script: [
        { content: [{ type: "tool_use", id: "toolu_p", name: "run_program", input: { code: SWEEP_PROGRAM } }] },
        { content: [{ type: "text", text: "Here are the duplicates." }] },
      ],
    });
    folder = await mkdtemp(join(tmpdir(), "agent-cli-"));
    const transcript = join(folder, "out.json");
    const cli = capture({ ANTHROPIC_API_KEY: "k" });
    await cli.program.parseAsync(
      [
        "agent",
        "--provider",
        "anthropic",
        "--model",
        "claude-test",
        "--tools",
        TOOLS_MODULE,
        "--mode",
        "programmatic",
        "--base-url",
        server.url,
        "--transcript",
        transcript,
        "Find duplicates.",
      ],
      { from: "user" },
    );
    expect(cli.exitCode()).toBe(0);
    expect(cli.stdout()).toBe("Here are the duplicates.\n");
    expect(cli.stderr()).toContain("step 1: asking the model");
    expect(cli.stderr()).toMatch(/run_program → ok: \d+ calls/);
    expect(cli.stderr()).toContain("status: completed");
    expect(cli.stderr()).toMatch(/programs: 1 run \(0 failed\)/);
    const saved = JSON.parse(await readFile(transcript, "utf8"));
    expect(saved).toMatchObject({
      provider: "anthropic",
      model: "claude-test",
      mode: "programmatic",
      task: "Find duplicates.",
      status: "completed",
    });
    expect(saved.messages).toHaveLength(4);
    expect(server.turnRequests[0]!.body.model).toBe("claude-test");
  });

  it("rewrites one status line with \\r on a terminal, and takes the OpenAI base URL from the environment", async () => {
    const server = await startServer({
      script: [
        {
          content: [
            { type: "tool_use", id: "call_s", name: "orders__search", input: { customerId: "cus_1001", pageSize: 1 } },
          ],
        },
        { content: [{ type: "text", text: "One order." }] },
      ],
    });
    const cli = capture({ OPENAI_API_KEY: "k", OPENAI_BASE_URL: server.openaiBaseURL }, true);
    await cli.program.parseAsync(
      [
        "agent",
        "--provider",
        "openai",
        "--model",
        "gpt-test",
        "--tools",
        TOOLS_MODULE,
        "--mode",
        "direct",
        "List one order.",
      ],
      { from: "user" },
    );
    expect(cli.exitCode()).toBe(0);
    expect(cli.stdout()).toBe("One order.\n");
    expect(cli.stderr()).toContain("\r\x1b[2Kstep 1 · waiting for the model");
    expect(cli.stderr()).toMatch(/1 call in flight/);
    expect(cli.stderr()).toMatch(/in \/ \d+ out tokens/);
    expect(server.turnRequests[0]!.headers.authorization).toBe("Bearer k");
  });

  it("runs hosted mode on the Responses API with --provider openai-responses", async () => {
    const server = await startServer({
      script: [
        {
          content: [
            { type: "hosted_program", id: "prog_cli", code: "const page = await tools.orders.search({});" },
            {
              type: "tool_use",
              id: "call_h",
              name: "orders__search",
              input: { customerId: "cus_1001", pageSize: 1 },
              hostedBy: "prog_cli",
            },
          ],
        },
        {
          content: [
            { type: "hosted_program_result", id: "prog_cli", output: "1 order" },
            { type: "text", text: "One order." },
          ],
        },
      ],
    });
    const cli = capture({ OPENAI_API_KEY: "k", OPENAI_BASE_URL: server.openaiBaseURL });
    await cli.program.parseAsync(
      [
        "agent",
        "--provider",
        "openai-responses",
        "--model",
        "gpt-test",
        "--tools",
        TOOLS_MODULE,
        "--mode",
        "hosted",
        "t",
      ],
      { from: "user" },
    );
    expect(cli.exitCode()).toBe(0);
    expect(cli.stdout()).toBe("One order.\n");
    expect(server.turnRequests[0]!.path).toBe("/v1/responses");
    expect(server.turnRequests[0]!.body.tools[0]).toEqual({ type: "programmatic_tool_calling" });
    expect(JSON.parse(server.turnRequests[1]!.body.input.at(-1).output).orders).toHaveLength(1);
  });

  it("builds the session from --config, with the config's permission rules", async () => {
    folder = await mkdtemp(join(tmpdir(), "agent-cli-"));
    const config = join(folder, "switchyard.config.json");
    await writeFile(
      config,
      JSON.stringify({
        tools: [TOOLS_MODULE],
        permissions: {
          rules: [{ tools: "orders.getPaymentContext", decision: "ask", reason: "payments need a person" }],
        },
      }),
    );
    const server = await startServer({
      script: [
        {
          content: [
            { type: "tool_use", id: "toolu_pay", name: "orders__getPaymentContext", input: { orderId: "ord_x" } },
          ],
        },
        { content: [{ type: "text", text: "Denied." }] },
      ],
    });
    const cli = capture({ ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: server.url });
    await cli.program.parseAsync(
      ["agent", "--provider", "anthropic", "--model", "m", "--config", config, "--mode", "direct", "Pay?"],
      { from: "user" },
    );
    expect(cli.exitCode()).toBe(0);
    const answer = server.turnRequests[1]!.body.messages.at(-1).content[0];
    // `ask` with no terminal to ask on (the CLI's approver) is a denial the model sees.
    expect(answer).toMatchObject({
      tool_use_id: "toolu_pay",
      is_error: true,
      content: expect.stringContaining("PERMISSION_DENIED"),
    });
    expect(answer.content).toContain("no terminal");
  });

  it("refuses to start without the provider's key in the environment", async () => {
    const cli = capture({});
    await expect(
      cli.program.parseAsync(["agent", "--provider", "anthropic", "--model", "m", "--tools", TOOLS_MODULE, "t"], {
        from: "user",
      }),
    ).rejects.toThrow(/Set ANTHROPIC_API_KEY/);
  });

  it("sends the provider's current default model when --model is left out, names it and its price row, and the SDK warns of no deprecation", async () => {
    const warn = vi.spyOn(console, "warn");
    try {
      const server = await startServer({
        script: [
          {
            content: [{ type: "text", text: "Done." }],
            usage: { inputTokens: 1000, cacheCreationTokens: 2000, cacheReadTokens: 3000, outputTokens: 100 },
          },
        ],
      });
      const cli = capture({ ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: server.url });
      await cli.program.parseAsync(["agent", "--provider", "anthropic", "--tools", TOOLS_MODULE, "Hi."], {
        from: "user",
      });
      expect(cli.exitCode()).toBe(0);
      expect(server.turnRequests[0]!.body.model).toBe("claude-sonnet-5-5");
      expect(cli.stderr()).toContain("model: claude-sonnet-5-5; price row claude-sonnet-5-5 (Claude Sonnet 5.5)");
      // 1,000 x $2 + 2,000 x $2.50 + 3,000 x $0.10 + 100 x $10, per million.
      expect(cli.stderr()).toContain(
        "cost as billed: $0.0083 (input $0.0020, cache write $0.0050, cache read $0.0003, output $0.0010)",
      );
      expect(warn.mock.calls.flat().join(" ")).not.toMatch(/deprecated/);
    } finally {
      warn.mockRestore();
    }
  });

  it("passes any model id through, prices it from a --pricing file, and says so when no row prices it", async () => {
    folder = await mkdtemp(join(tmpdir(), "agent-cli-"));
    const pricing = join(folder, "prices.json");
    await writeFile(
      pricing,
      JSON.stringify([
        {
          id: "my-finetune",
          provider: "openai",
          label: "My fine-tune",
          inputPerMTok: 1,
          cacheWritePerMTok: 1,
          cacheReadPerMTok: 0.5,
          outputPerMTok: 4,
          contextWindowTokens: 128000,
          minCacheableTokens: 1024,
          toolUseSystemPromptTokens: 0,
          source: "https://example.com/contract",
          checked: "2026-11-30",
        },
      ]),
    );
    const server = await startServer({
      script: [{ content: [{ type: "text", text: "A." }] }, { content: [{ type: "text", text: "B." }] }],
    });
    const priced = capture({ OPENAI_API_KEY: "k", OPENAI_BASE_URL: server.openaiBaseURL });
    await priced.program.parseAsync(
      ["agent", "--provider", "openai", "--model", "my-finetune", "--pricing", pricing, "--tools", TOOLS_MODULE, "Hi."],
      { from: "user" },
    );
    expect(server.turnRequests[0]!.body.model).toBe("my-finetune");
    expect(priced.stderr()).toContain("price row my-finetune (My fine-tune): $1 input");
    expect(priced.stderr()).toContain("https://example.com/contract, checked 2026-11-30");

    const unpriced = capture({ OPENAI_API_KEY: "k", OPENAI_BASE_URL: server.openaiBaseURL });
    await unpriced.program.parseAsync(
      ["agent", "--provider", "openai", "--model", "o-something-new", "--tools", TOOLS_MODULE, "Hi."],
      { from: "user" },
    );
    expect(server.turnRequests[1]!.body.model).toBe("o-something-new");
    expect(unpriced.stderr()).toContain(
      "model: o-something-new (no price row for this id: pass --pricing <file> to price it)",
    );
    expect(unpriced.stderr()).not.toContain("cost as billed");
  });
});

describe("switchyard agent --mode", () => {
  it("offers exactly the loop's modes, listed without loading the agent code", async () => {
    const { CLI_AGENT_MODES } = await import("../../src/cli/agent-command.js");
    const { AGENT_MODES } = await import("../../src/agent/agent-toolset.js");
    expect([...CLI_AGENT_MODES]).toEqual([...AGENT_MODES]);
  });
});
