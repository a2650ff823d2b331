// The `switchyard agent` command: runs the agent loop against a real provider over the tools
// of a module or a config file. Argument parsing only; run-agent-command.ts, loaded when the
// command runs, does the work. Keys come from the environment, never from flags.

import { Option, type Command } from "commander";
import type { AgentMode } from "../agent/model-adapter.js";
import type { AgentCommandIO, AgentCommandOptions } from "./run-agent-command.js";

/** The loop's modes, for `--mode`'s choices without loading the agent code (a test holds it to AGENT_MODES). */
export const CLI_AGENT_MODES = ["direct", "programmatic", "hybrid", "hosted"] as const satisfies readonly AgentMode[];

export type { AgentCommandIO, AgentCommandOptions } from "./run-agent-command.js";

/** Registers `agent` on `program`. */
export function registerAgentCommand(program: Command, io: AgentCommandIO = processIO()): Command {
  return (
    program
      .command("agent")
      .description("run an agent loop with a real model over the tools of a module or a config file")
      .argument("<task>", "what the agent should do")
      .addOption(
        new Option(
          "--provider <name>",
          "model provider (openai: Chat Completions; openai-responses: the Responses API)",
        )
          .choices(["anthropic", "openai", "openai-responses"])
          .makeOptionMandatory(),
      )
      .option(
        "--model <id>",
        "any model id the provider serves (default: the provider's default row of the price table, claude-sonnet-5-5 or gpt-5.6-terra)",
      )
      .option("--pricing <file>", "price rows (JSON) merged over the shipped table, to price other models")
      .addOption(
        new Option("--mode <mode>", "how the model calls tools").choices([...CLI_AGENT_MODES]).default("programmatic"),
      )
      // Repeatable rather than variadic, so the task can follow `--tools <module>` directly.
      .option(
        "--tools <module>",
        "a module exporting tools (repeat for more)",
        (value: string, previous: string[] = []) => [...previous, value],
      )
      .option("--config <file>", "a switchyard config file (tools, MCP servers, permissions)")
      .option("--transcript <file>", "save the transcript and usage as JSON")
      .option("--base-url <url>", "API base URL (default: ANTHROPIC_BASE_URL / OPENAI_BASE_URL, else the provider's)")
      .option("--max-steps <n>", "most model requests", "20")
      .option("--max-tokens <n>", "most output tokens per request", "4096")
      .option("--stream", "stream responses (SSE)")
      .action(async (task: string, options: AgentCommandOptions) => {
        const { runAgentCommand } = await import("./run-agent-command.js");
        io.setExitCode(await runAgentCommand(task, options, io));
      })
  );
}

function processIO(): AgentCommandIO {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    setExitCode: (code) => {
      process.exitCode = code;
    },
  };
}
