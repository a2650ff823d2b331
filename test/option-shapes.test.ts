// A session's options from plain JavaScript: every option, and the lists and objects inside
// them, given a value of the wrong shape (null, a number, a string, a list, a function...).
// `new Switchyard` either builds a session or throws one OPTION_INVALID line naming the option;
// before src/option-shapes.ts, 43 of these threw a TypeError from deep inside a part. The same
// for a tool's definition and a journal store's options.

import { describe, expect, it } from "vitest";
import { FileRunJournal } from "../src/durable/file-run-journal.js";
import { SwitchyardError } from "../src/errors.js";
import { defineTool } from "../src/registry/define-tool.js";
import { Switchyard } from "../src/switchyard.js";

const WRONG: readonly unknown[] = [null, 42, Number.NaN, "x", true, [], [null], [42], {}, { a: null }, () => 1];

const OPTIONS = [
  "tools",
  "limits",
  "permissions",
  "scheduler",
  "results",
  "defaultToolTimeoutMs",
  "sessionTimeMs",
  "typeCheck",
  "typeChecker",
  "warmUpTypeChecker",
  "discovery",
  "redaction",
  "telemetry",
  "runQueue",
  "workers",
  "observedTypes",
  "runJournal",
];

const NESTED: Record<string, readonly string[]> = {
  limits: ["wallTimeMs", "cpuTimeMs", "memoryLimitMb", "maxToolCalls", "maxOutputBytes"],
  permissions: ["rules", "default", "approve", "approveProgram"],
  scheduler: ["maxConcurrentReads", "rateLimits"],
  results: ["maxDirectResultBytes", "spill", "previewBytes"],
  discovery: ["defer", "embed"],
  redaction: ["secrets", "patterns", "credentialFormats"],
  runQueue: ["memoryBudgetMb", "maxQueuedRuns"],
  observedTypes: ["file"],
};

/** What `new Switchyard(options)` did: "built", or the OPTION_INVALID message; anything else fails the test. */
async function outcomeOf(options: unknown): Promise<string> {
  let yard: Switchyard;
  try {
    yard = new Switchyard({ warmUp: false, ...(options as object) });
  } catch (error) {
    if (!SwitchyardError.isInstance(error)) throw error;
    expect(error.code).toMatch(/^(OPTION_INVALID|CONFIG_INVALID|SCHEMA_INVALID|TOOL_NAME_INVALID)$/);
    expect(error.message).not.toContain("\n");
    return error.message;
  }
  await yard.close();
  return "built";
}

describe("the shapes of a session's options", () => {
  it("builds a session or throws one OPTION_INVALID line for every option of the wrong shape, never a TypeError", async () => {
    for (const option of OPTIONS) for (const value of WRONG) await outcomeOf({ [option]: value });
    for (const [option, inner] of Object.entries(NESTED))
      for (const key of inner) for (const value of WRONG) await outcomeOf({ [option]: { [key]: value } });
  });

  it("takes every option's documented forms, false included", async () => {
    for (const options of [
      { redaction: false },
      { observedTypes: false },
      { telemetry: false },
      { results: { spill: false } },
      { tools: [], limits: {}, permissions: { rules: [] }, scheduler: { rateLimits: [] } },
      {
        redaction: {
          secrets: ["s3cret-value", { value: "other-secret", kind: "token" }],
          patterns: ["x-[0-9]+", /y-\d+/],
        },
      },
    ])
      expect(await outcomeOf(options)).toBe("built");
  });

  it("names the option, what it must be and what it is", async () => {
    expect(await outcomeOf({ permissions: null })).toBe("permissions must be an object; it is null.");
    expect(await outcomeOf({ tools: { name: "a.b" } })).toBe("tools must be a list; it is an object.");
    expect(await outcomeOf({ tools: [null] })).toBe("tools[0] must be an object; it is null.");
    expect(await outcomeOf({ redaction: { secrets: "s3cret-value" } })).toBe(
      "redaction.secrets must be a list; it is a string.",
    );
    expect(await outcomeOf({ redaction: { patterns: [42] } })).toBe(
      "redaction.patterns[0] must be a string or an object; it is a number.",
    );
    expect(await outcomeOf({ observedTypes: true })).toBe("observedTypes must be an object or false; it is true.");
    expect(await outcomeOf({ scheduler: { rateLimits: [() => 1] } })).toBe(
      "scheduler.rateLimits[0] must be an object; it is a function.",
    );
  });

  it("refuses options that are not an object at all", () => {
    expect(() => new Switchyard(null as never)).toThrow("The session's options must be an object; it is null.");
    expect(() => new Switchyard("tools" as never)).toThrow(/it is a string/);
  });

  it("refuses a tool that is not an object, callers that are not a list of caller kinds, and a store without a folder", () => {
    const code = (make: () => unknown): string => {
      try {
        make();
      } catch (error) {
        if (SwitchyardError.isInstance(error)) return `${error.code}: ${error.message}`;
        throw error;
      }
      return "made";
    };
    const tool = { name: "crm.find", description: "Finds.", inputSchema: { type: "object" }, execute: () => 1 };
    expect(code(() => defineTool(null as never))).toBe(
      "OPTION_INVALID: A tool must be an object: { name, description, inputSchema, execute }.",
    );
    for (const callers of [42, "direct", {}, [null], ["model"]])
      expect(code(() => defineTool({ ...tool, callers: callers as never }))).toBe(
        'OPTION_INVALID: Tool "crm.find": callers must be a list of "direct", "program", "hosted-program".',
      );
    expect(code(() => defineTool({ ...tool, callers: ["program", "hosted-program"] }))).toBe("made");
    for (const options of [null, {}, { folder: 42 }, { folder: "" }])
      expect(code(() => new FileRunJournal(options as never))).toBe(
        "OPTION_INVALID: FileRunJournal needs { folder }: the folder its journals live in.",
      );
  });
});
