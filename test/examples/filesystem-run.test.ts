import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { EXAMPLE_PATH, runFilesystemExample } from "../../examples/filesystem/run.js";

const run = promisify(execFile);

describe("the filesystem example (server-filesystem over stdio)", () => {
  it("summarizes the generated notes exactly, reading them in parallel, and returns far less than it read", async () => {
    const { result, expected } = await runFilesystemExample();
    expect(result.ok, result.error?.message).toBe(true);
    expect(result.output).toEqual(expected);
    expect(result.calls.filter((call) => call.tool === "fs.read_text_file")).toHaveLength(expected.files);
    expect(result.stats.bytesIn).toBeGreaterThan(5 * result.stats.bytesOut);
  });

  it("runs as a script and prints the output and the byte stats", async () => {
    const { stdout } = await run(process.execPath, ["--no-node-snapshot", "--import", "tsx", EXAMPLE_PATH], {
      timeout: 30_000,
    });
    expect(stdout).toMatch(/server-filesystem: \d+ tools, started in \d+ ms/);
    expect(stdout).toMatch(/"totalWords": \d+/);
    expect(stdout).toMatch(/bytes of tool results kept in the sandbox: \d+; bytes returned to the model: \d+/);
    console.info(stdout);
  });
});
