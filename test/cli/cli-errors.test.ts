// The `switchyard` command as a user meets it: the real bin/switchyard.js (which re-executes
// Node with --no-node-snapshot and tsx) in a child process. Each mistake ends with one line on
// stderr, no stack trace and the documented exit code; signals sent to the wrapper cancel a
// run like Ctrl-C; a closed pipe ends the command quietly.

import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import type { RunResult } from "../../src/contract.js";
import { tempFolder, waitFor } from "../helpers/mcp-servers.js";

const BIN = fileURLToPath(new URL("../../bin/switchyard.js", import.meta.url));
const TOOLS = fileURLToPath(new URL("./fixtures/waiting-tools.ts", import.meta.url));

const temp = tempFolder("cli");
afterAll(() => temp.remove());

interface Finished {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

function start(args: readonly string[], options: { env?: Record<string, string>; detached?: boolean } = {}) {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: temp.path,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: options.detached ?? false,
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const finished = new Promise<Finished>((resolve) => {
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, finished, stderr: () => stderr };
}

function run(args: readonly string[], env?: Record<string, string>): Promise<Finished> {
  return start(args, env === undefined ? {} : { env }).finished;
}

/** One `switchyard: ...` line and nothing that looks like a stack frame. */
function expectOneLineMistake(finished: Finished, pattern: RegExp): void {
  expect(finished.code).toBe(2);
  const lines = finished.stderr.trimEnd().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^switchyard: /);
  expect(lines[0]).toMatch(pattern);
  expect(finished.stderr).not.toMatch(/^\s+at /m);
  expect(finished.stdout).toBe("");
}

function writeProgram(name: string, source: string): string {
  const path = join(temp.path, name);
  writeFileSync(path, source);
  return path;
}

describe("switchyard: a user's mistakes", () => {
  it("reports a program file that does not exist in one line, exit 2", async () => {
    const finished = await run(["run", "missing.ts", "--tools", TOOLS]);
    expectOneLineMistake(finished, /the program file "missing\.ts" does not exist/);
  });

  it("reports a folder given as the program file in one line, exit 2", async () => {
    const finished = await run(["run", temp.path, "--tools", TOOLS]);
    expectOneLineMistake(finished, /is a folder; give the path of a file/);
  });

  it("refuses a --trace path in a missing folder before loading any tool module", async () => {
    const marks = join(temp.path, "trace-marks.txt");
    const program = writeProgram("trace.ts", "return 1;");
    const finished = await run(
      ["run", program, "--tools", TOOLS, "--trace", join(temp.path, "no", "such", "t.jsonl")],
      {
        SWITCHYARD_TEST_MARKS: marks,
      },
    );
    expectOneLineMistake(finished, /cannot write the trace file \(--trace\).*does not exist; create it/);
    expect(existsSync(marks)).toBe(false);
  });

  it("refuses a --log-file that cannot be written before loading any tool module", async () => {
    const marks = join(temp.path, "log-marks.txt");
    const config = join(temp.path, "log.config.json");
    writeFileSync(config, JSON.stringify({ tools: [TOOLS] }));
    const finished = await run(["serve", "--config", config, "--log-file", temp.path], {
      SWITCHYARD_TEST_MARKS: marks,
    });
    expectOneLineMistake(finished, /the log file \(--log-file\) ".*" is a folder/);
    expect(existsSync(marks)).toBe(false);
  });

  it("refuses an agent --transcript path in a missing folder before loading any tool module", async () => {
    const marks = join(temp.path, "agent-marks.txt");
    const finished = await run(
      [
        "agent",
        "--provider",
        "anthropic",
        "--model",
        "any",
        "--tools",
        TOOLS,
        "--transcript",
        join(temp.path, "missing", "t.json"),
        "a task",
      ],
      { SWITCHYARD_TEST_MARKS: marks, ANTHROPIC_API_KEY: "not-used" },
    );
    expectOneLineMistake(finished, /cannot write the transcript \(--transcript\)/);
    expect(existsSync(marks)).toBe(false);
  });

  // Found from outside (2026-12-03): each of these printed a stack trace, ran with a wrong
  // value, or said nothing of the mistake.
  it("reports trace view's missing trace, folder, --program and --out in one line, and a file that is no trace", async () => {
    const trace = join(temp.path, "t.jsonl");
    writeFileSync(trace, `${JSON.stringify({ type: "program-start", programId: "p", at: 1 })}\n`);
    expectOneLineMistake(await run(["trace", "view", "nope.jsonl"]), /the trace "nope\.jsonl" does not exist/);
    expectOneLineMistake(await run(["trace", "view", temp.path]), /is a folder; give the path of a file/);
    expectOneLineMistake(await run(["trace", "view", trace, "--program", "nope.ts"]), /the program \(--program\)/);
    expectOneLineMistake(
      await run(["trace", "view", trace, "--out", join(temp.path, "no", "page.html")]),
      /cannot write the page \(--out\).*does not exist/,
    );
    const notTrace = writeProgram("not-a-trace.ts", "return 1;\n");
    expectOneLineMistake(await run(["trace", "view", notTrace]), /holds no trace events/);
  }, 60_000);

  it("refuses a --http port that is not decimal digits, and a --base-url that is not a URL", async () => {
    const config = join(temp.path, "port.config.json");
    writeFileSync(config, JSON.stringify({ tools: [TOOLS] }));
    for (const port of ["0x50", "1e3", ""]) {
      expectOneLineMistake(await run(["serve", "--config", config, "--http", port]), /--http needs a port/);
    }
    const agent = await run(
      ["agent", "--provider", "anthropic", "--model", "any", "--tools", TOOLS, "--base-url", "notaurl", "a task"],
      { ANTHROPIC_API_KEY: "not-used" },
    );
    expectOneLineMistake(agent, /--base-url must be a URL/);
  }, 60_000);

  it("refuses a wallTimeMs past Node's longest timer, which ended every run at once as TIMEOUT", async () => {
    const config = join(temp.path, "long.config.json");
    writeFileSync(config, JSON.stringify({ tools: [TOOLS], limits: { wallTimeMs: 2_147_483_648 } }));
    const program = writeProgram("long.ts", "return 1;");
    const finished = await run(["run", program, "--config", config]);
    expect(finished.stderr).not.toContain("TimeoutOverflowWarning");
    expectOneLineMistake(finished, /wallTimeMs must be at most 2147483647 ms/);
  }, 30_000);

  it("says a runs --dir that does not exist does not, instead of listing no runs", async () => {
    for (const command of ["list", "prune"]) {
      expectOneLineMistake(await run(["runs", command, "--dir", join(temp.path, "nowhere")]), /does not exist/);
    }
  }, 30_000);

  it("writes a program's control characters to the terminal as escapes: its logs, its error", async () => {
    const program = writeProgram(
      "escapes.ts",
      'console.log("A\\u001b]0;title\\u0007B\\u009b2J"); throw new Error("E\\u001b[31mred");',
    );
    const finished = await run(["run", program, "--tools", TOOLS]);
    expect(finished.code).toBe(1);
    expect(finished.stdout + finished.stderr).not.toMatch(/[\u001b\u0007\u009b]/);
    expect(finished.stdout + finished.stderr).toContain("A\\u001b]0;title\\u0007B\\u009b2J");
  }, 30_000);

  it("reports a busy --http port in one line, exit 2, before starting any server", async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as { port: number }).port;
    const marks = join(temp.path, "serve-marks.txt");
    const config = join(temp.path, "serve.config.json");
    writeFileSync(config, JSON.stringify({ tools: [TOOLS] }));
    try {
      const finished = await run(["serve", "--config", config, "--http", String(port)], {
        SWITCHYARD_TEST_MARKS: marks,
      });
      expectOneLineMistake(finished, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use`));
      expect(existsSync(marks)).toBe(false);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it("reports an unknown bench option in one line, exit 2", async () => {
    const finished = await run(["bench", "tokens", "--bogus"]);
    expectOneLineMistake(finished, /Unknown option --bogus/);
  });

  it("reports an unknown flag in one line, exit 2", async () => {
    const finished = await run(["run", "x.ts", "--bogus"]);
    expectOneLineMistake(finished, /unknown option '--bogus'/);
  });

  it("reports a missing --config and --tools in one line, exit 2", async () => {
    const program = writeProgram("no-tools.ts", "return 1;");
    const finished = await run(["run", program]);
    expectOneLineMistake(finished, /give --config <file> or --tools/);
  });

  it("reports an --input file that does not exist in one line, before loading any tool module", async () => {
    const marks = join(temp.path, "input-missing-marks.txt");
    const program = writeProgram("input-missing.ts", "return input;");
    const finished = await run(["run", program, "--tools", TOOLS, "--input", "no-such.json"], {
      SWITCHYARD_TEST_MARKS: marks,
    });
    expectOneLineMistake(finished, /the input file \(--input\) "no-such\.json" does not exist/);
    expect(existsSync(marks)).toBe(false);
  });

  it("reports an --input file that is not JSON in one line, even when the parser quotes several lines", async () => {
    const marks = join(temp.path, "input-bad-marks.txt");
    const program = writeProgram("input-bad.ts", "return input;");
    const bad = join(temp.path, "bad.json");
    writeFileSync(bad, '{\n  "ids": [1, 2,\n  oops\n}\n');
    const finished = await run(["run", program, "--tools", TOOLS, "--input", bad], { SWITCHYARD_TEST_MARKS: marks });
    expectOneLineMistake(finished, /the input file \(--input\) ".*bad\.json" is not valid JSON \(.+\); fix it/);
    expect(existsSync(marks)).toBe(false);
  });

  it("ends a run whose --input is over maxInputBytes with INPUT_TOO_LARGE, exit 1, having run nothing", async () => {
    const program = writeProgram("input-large.ts", "return input.length;");
    const large = join(temp.path, "large.json");
    writeFileSync(large, JSON.stringify("x".repeat(1024 * 1024 + 1)));
    const finished = await run(["run", program, "--tools", TOOLS, "--input", large, "--json"]);
    expect(finished.code).toBe(1);
    const result = JSON.parse(finished.stdout) as RunResult;
    expect(result.error?.code).toBe("INPUT_TOO_LARGE");
    expect(result.stats.cpuMs).toBe(0);
  });

  it("reports an --output-schema that does not compile in one line, before loading any tool module", async () => {
    const marks = join(temp.path, "schema-bad-marks.txt");
    const program = writeProgram("schema-bad.ts", "return 1;");
    const schema = join(temp.path, "bad-schema.json");
    writeFileSync(schema, JSON.stringify({ type: "object", required: "all" }));
    const finished = await run(["run", program, "--tools", TOOLS, "--output-schema", schema], {
      SWITCHYARD_TEST_MARKS: marks,
    });
    expectOneLineMistake(
      finished,
      /the output schema \(--output-schema\) ".*bad-schema\.json": the JSON Schema does not compile/,
    );
    expect(existsSync(marks)).toBe(false);
  });

  it("reports a serve --output-schema that is not a schema in one line, before loading any tool module", async () => {
    const marks = join(temp.path, "serve-schema-marks.txt");
    const config = join(temp.path, "serve-schema.config.json");
    writeFileSync(config, JSON.stringify({ tools: [TOOLS] }));
    const schema = join(temp.path, "list-schema.json");
    writeFileSync(schema, "[1, 2]");
    const finished = await run(["serve", "--config", config, "--output-schema", schema], {
      SWITCHYARD_TEST_MARKS: marks,
    });
    expectOneLineMistake(finished, /must hold a JSON Schema object/);
    expect(existsSync(marks)).toBe(false);
  });

  it("ends `demo | head` quietly when the reader goes away: exit 0, nothing on stderr", async () => {
    const { child, finished } = start(["demo"]);
    child.stdout?.once("data", () => child.stdout?.destroy());
    const result = await finished;
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
  });
});

describe("switchyard run --input", () => {
  it("hands the file's JSON value (a byte order mark allowed) to the program as `input`", async () => {
    const program = writeProgram("input-sum.ts", "return input.ids.reduce((sum: number, id: number) => sum + id, 0);");
    const file = join(temp.path, "ids.json");
    writeFileSync(file, `\uFEFF${JSON.stringify({ ids: [1, 2, 39] })}`);
    const finished = await run(["run", program, "--tools", TOOLS, "--input", file, "--json"]);
    expect(finished.stderr).toBe("");
    expect(finished.code).toBe(0);
    expect((JSON.parse(finished.stdout) as RunResult).output).toBe(42);
  });
});

describe("switchyard run --output-schema", () => {
  it("declares the schema as the program's return type: a wrong shape is a TYPE_ERROR, exit 1", async () => {
    const schema = join(temp.path, "count-schema.json");
    writeFileSync(
      schema,
      JSON.stringify({ type: "object", properties: { count: { type: "number" } }, required: ["count"] }),
    );
    const right = writeProgram("count-right.ts", "return { count: 3 };");
    const wrong = writeProgram("count-wrong.ts", "return { count: 'three' };");
    const ok = await run(["run", right, "--tools", TOOLS, "--output-schema", schema, "--json"]);
    expect(ok.code).toBe(0);
    expect((JSON.parse(ok.stdout) as RunResult).output).toEqual({ count: 3 });
    const refused = await run(["run", wrong, "--tools", TOOLS, "--output-schema", schema, "--json"]);
    expect(refused.code).toBe(1);
    expect((JSON.parse(refused.stdout) as RunResult).error).toMatchObject({ code: "TYPE_ERROR", line: 1 });
  });
});

describe("switchyard run: signals", () => {
  const PENDING_CALLS = 3;
  const program = (): string =>
    writeProgram(
      "wait.ts",
      `await Promise.all([0, 1, 2].map((id) => tools.wait.untilCancelled({ id })));\nreturn "never";\n`,
    );

  /** Starts a run whose calls wait until cancelled, and resolves once they are all in flight. */
  async function startWaitingRun(name: string, detached = false) {
    const marks = join(temp.path, `${name}-marks.txt`);
    const started = start(["run", program(), "--tools", TOOLS, "--json"], {
      env: { SWITCHYARD_TEST_MARKS: marks },
      detached,
    });
    const callsStarted = (): number =>
      existsSync(marks)
        ? readFileSync(marks, "utf8")
            .split("\n")
            .filter((line) => line.startsWith("start")).length
        : 0;
    await waitFor(() => callsStarted() === PENDING_CALLS, 60_000, "the calls to be in flight");
    return started;
  }

  function expectCancelledRun(finished: Finished, exitCode: number): void {
    expect(finished.signal).toBeNull();
    expect(finished.code).toBe(exitCode);
    const result = JSON.parse(finished.stdout) as RunResult;
    expect(result.ok).toBe(false);
    expect(result.error?.code).toBe("CANCELLED");
    expect(result.calls).toHaveLength(PENDING_CALLS);
    expect(result.calls.every((call) => call.status === "cancelled")).toBe(true);
    expect(finished.stderr).not.toMatch(/^\s+at /m);
  }

  it("cancels every pending call on SIGINT sent to the wrapper's pid, and exits 130", async () => {
    const { child, finished } = await startWaitingRun("sigint");
    child.kill("SIGINT");
    expectCancelledRun(await finished, 130);
  });

  it("cancels every pending call on SIGTERM sent to the wrapper's pid, and exits 143", async () => {
    const { child, finished } = await startWaitingRun("sigterm");
    child.kill("SIGTERM");
    expectCancelledRun(await finished, 143);
  });

  it("takes a terminal's Ctrl-C (SIGINT to the whole process group, forwarded once more) as one interrupt", async () => {
    const { child, finished } = await startWaitingRun("group", true);
    process.kill(-(child as ChildProcess & { pid: number }).pid, "SIGINT");
    const result = await finished;
    expectCancelledRun(result, 130);
    expect(result.stderr).not.toContain("stopping now");
  });

  it("keeps stdout and stderr free of terminal control codes when they are not terminals", async () => {
    const path = writeProgram(
      "plain.ts",
      "const r = await tools.wait.rateLimited({}).catch((e) => e.code);\nreturn r;\n",
    );
    const finished = await run(["run", path, "--tools", TOOLS]);
    expect(finished.code).toBe(0);
    expect(finished.stdout).toContain('"RATE_LIMITED"');
    expect(`${finished.stdout}${finished.stderr}`).not.toMatch(/[\r\u001b]/);
  });
});
