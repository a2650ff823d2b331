import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { expectedDeskAnswer } from "../../examples/support-desk/desk.js";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

describe("the framework examples, run as scripts", () => {
  it.each(["ai-sdk", "openai-agents", "langchain"])(
    "examples/%s/support-desk.ts answers from a 14-call program",
    async (framework) => {
      const { stdout } = await run(
        process.execPath,
        ["--no-node-snapshot", "--import", "tsx", `examples/${framework}/support-desk.ts`],
        { cwd: ROOT, timeout: 60_000 },
      );
      expect(stdout).toContain(`answer: ${expectedDeskAnswer()}`);
      expect(stdout).toMatch(/run \S+-p1: 14 tool calls, [\d.]+ ms/);
    },
  );
});
