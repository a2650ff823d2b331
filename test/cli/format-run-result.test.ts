import { describe, expect, it } from "vitest";
import { formatRunResult, summarizeRun } from "../../src/cli/format-run-result.js";
import type { RunResult } from "../../src/contract.js";

const run: RunResult = {
  ok: true,
  programId: "p1",
  output: { token: "[REDACTED:github-token]" },
  logs: [],
  warnings: [],
  calls: [],
  stats: { wallMs: 12, cpuMs: 3, toolCalls: 0, bytesIn: 0, bytesOut: 40 },
  catalogVersion: 1,
};

describe("the CLI's run summary", () => {
  it("says how many secrets of which kinds were redacted", () => {
    const redacted = { ...run, redactions: { "github-token": 2, jwt: 1 } };
    expect(summarizeRun(redacted)).toMatch(/; redacted: 2 github-token, 1 jwt$/);
    expect(formatRunResult(redacted).split("\n").at(-1)).toMatch(/redacted: 2 github-token, 1 jwt$/);
  });

  it("says nothing of redaction when nothing was redacted", () => {
    expect(summarizeRun(run)).not.toContain("redacted");
  });
});
