// The `switchyard` command as a user meets it (the real bin/switchyard.js in a child process):
// its version, and the mistakes of issue 29 that printed two or three lines before, each now one
// line that says where (JSON line and column, the config key meant, the tool module's own file)
// and names no file inside the package.

import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { tempFolder } from "../helpers/mcp-servers.js";

const BIN = fileURLToPath(new URL("../../bin/switchyard.js", import.meta.url));
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const TOOLS = fileURLToPath(new URL("./fixtures/waiting-tools.ts", import.meta.url));

const temp = tempFolder("cli-once");
afterAll(() => temp.remove());

interface Finished {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function run(args: readonly string[]): Promise<Finished> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: temp.path, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

function write(name: string, text: string): string {
  const path = join(temp.path, name);
  writeFileSync(path, text);
  return path;
}

/** One `switchyard: ...` line, exit 2, nothing on stdout, no stack frame and no path inside the package. */
function expectOneLine(finished: Finished, pattern: RegExp): void {
  expect(finished.stdout).toBe("");
  const lines = finished.stderr.trimEnd().split("\n");
  expect(lines, finished.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^switchyard: /);
  expect(lines[0]).toMatch(pattern);
  expect(finished.stderr).not.toMatch(/^\s+at /m);
  expect(finished.stderr).not.toContain(join(ROOT, "src"));
  expect(finished.stderr).not.toContain(join(ROOT, "dist"));
  expect(finished.code).toBe(2);
}

describe("switchyard --version", () => {
  it("prints the package.json version and exits 0", async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
    const finished = await run(["--version"]);
    expect(finished).toEqual({ code: 0, stdout: `${version}\n`, stderr: "" });
  });
});

describe("switchyard: each mistake in one line", () => {
  it("suggests the config key a misspelled one meant, and lists the keys when none is close", async () => {
    const program = write("p.ts", "return 1;");
    const config = write("typo.config.json", JSON.stringify({ tols: [TOOLS], limits: { wallTimeMS: 5, speed: 1 } }));
    const finished = await run(["run", program, "--config", config]);
    expectOneLine(finished, /\/tols: unknown key; did you mean "tools"\?/);
    expect(finished.stderr).toMatch(/\/limits\/wallTimeMS: unknown key; did you mean "wallTimeMs"\?/);
    expect(finished.stderr).toMatch(/\/limits\/speed: unknown key; the keys here are "wallTimeMs", "cpuTimeMs"/);
  });

  it("says where a config file stops being JSON by line and column", async () => {
    const program = write("p.ts", "return 1;");
    const config = write("comma.config.json", '{\n  "tools": [],\n  "typeCheck": "off",\n}\n');
    const finished = await run(["run", program, "--config", config]);
    expectOneLine(finished, /is not valid JSON: .* at line 4, column 1\.$/);
  });

  it("reports an MCP server that did not start with the last line it wrote to stderr", async () => {
    const program = write("p.ts", "return 1;");
    const config = write(
      "mcp.config.json",
      JSON.stringify({
        mcpServers: {
          crm: { command: "sh", args: ["-c", "echo starting >&2; echo 'fatal: CRM_TOKEN unset' >&2; exit 1"] },
        },
      }),
    );
    const finished = await run(["run", program, "--config", config]);
    expectOneLine(finished, /The MCP server "crm" failed to start .* Its stderr ended with: "fatal: CRM_TOKEN unset"$/);
  });

  it("reports a tool module with a syntax error at its own file, line and column, without a require chain", async () => {
    const program = write("p.ts", "return 1;");
    write("broken-tools.ts", "export const tools = [\n  (\n");
    const finished = await run(["run", program, "--tools", "./broken-tools.ts"]);
    expectOneLine(
      finished,
      /Could not load the tool module "\.\/broken-tools\.ts": broken-tools\.ts line 3, column 1: /,
    );
  });

  it("reports a tool module whose import is missing without the package's loader path", async () => {
    const program = write("p.ts", "return 1;");
    write("importing-tools.mjs", 'import "no-such-package-anywhere";\nexport const tools = [];\n');
    const finished = await run(["run", program, "--tools", "./importing-tools.mjs"]);
    expectOneLine(
      finished,
      /Could not load the tool module "\.\/importing-tools\.mjs": Cannot find package 'no-such-package-anywhere'$/,
    );
  });

  it("reports a tool module path that does not exist as such, with the path it looked at", async () => {
    const program = write("p.ts", "return 1;");
    const finished = await run(["run", program, "--tools", "./nowhere.ts"]);
    expectOneLine(
      finished,
      /The tool module "\.\/nowhere\.ts" does not exist \(looked for .*nowhere\.ts\); check the path\./,
    );
  });
});

describe("switchyard run: a syntax error", () => {
  it("states the position once, in the error's heading", async () => {
    const program = write("syntax.ts", "const total = 1 +;\nreturn total;\n");
    const finished = await run(["run", program, "--tools", TOOLS]);
    expect(finished.code).toBe(1);
    expect(finished.stdout).toMatch(
      /^error SYNTAX_ERROR \(line 1, column 18\):\n {2}Unexpected ";": const total = 1 \+;\n/,
    );
    expect(finished.stdout.match(/line 1/g)).toHaveLength(1);
  });
});

describe("switchyard demo", () => {
  it("prints its summary first and no JSON; --json prints the RunResult alone", async () => {
    const plain = await run(["demo"]);
    expect(plain.code).toBe(0);
    const lines = plain.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(
      /^found 8 duplicate-charge candidates in 612 orders, 2 lookups failed for good; ground truth: 8 duplicate charges, 2 orders/,
    );
    expect(lines[1]).toMatch(/^calls: \d+ \(\d+ ok, \d+ error\); /);
    expect(lines).toHaveLength(3);
    expect(plain.stdout).not.toContain("{");
    const json = await run(["demo", "--json"]);
    expect(json.code).toBe(0);
    const result = JSON.parse(json.stdout) as { ok: boolean; output: { candidates: unknown[] } };
    expect(result.ok).toBe(true);
    expect(result.output.candidates).toHaveLength(8);
  }, 60_000);
});

describe("switchyard: hostile text in a mistake", () => {
  it("prints a config key with a newline and a terminal escape as escapes, on one line", async () => {
    const program = write("p.ts", "return 1;");
    const config = write("hostile.config.json", JSON.stringify({ ["to\u001b[2J\nols"]: [], ["x".repeat(100_000)]: 1 }));
    const finished = await run(["run", program, "--config", config]);
    expectOneLine(finished, /unknown key/);
    expect(finished.stderr).not.toContain("\u001b");
    expect(finished.stderr).toContain("\\u001b[2J");
    expect(finished.stderr.length).toBeLessThan(250_000);
  });
});
