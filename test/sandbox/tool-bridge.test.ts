import { describe, expect, it, vi } from "vitest";
import { defineTool } from "../../src/registry/define-tool.js";
import { ToolBridge, exceedsJsonDepth } from "../../src/sandbox/tool-bridge.js";
import { decodeCallEnvelope } from "../../runtime/wire.js";
import { createTestContext } from "../helpers/pipeline-fixtures.js";

function createBridge(execute = vi.fn((input: unknown) => input)) {
  const tool = defineTool({
    name: "util.echo",
    description: "Echo.",
    effect: "read",
    inputSchema: { type: "object" },
    execute,
  });
  const { context } = createTestContext([tool]);
  const onCallLimit = vi.fn();
  const bridge = new ToolBridge({
    programId: "p1",
    pipeline: context,
    maxToolCalls: 2,
    maxArgumentBytes: 1_000,
    maxArgumentDepth: 4,
    maxPendingArgumentBytes: 10_000,
    onCallLimit,
  });
  return { bridge, execute, onCallLimit };
}

async function answer(bridge: ToolBridge, path: unknown, argsJson: unknown) {
  return decodeCallEnvelope(await bridge.handle(path, argsJson));
}

describe("ToolBridge, the host side of a program's calls", () => {
  it("refuses every call once closed, with one cancelled record each, and never runs the tool", async () => {
    const { bridge, execute } = createBridge();
    bridge.close();
    expect(await answer(bridge, "util.echo", "{}")).toMatchObject({ ok: false, code: "RUN_FINISHED", callId: "p1.1" });
    expect(execute).not.toHaveBeenCalled();
    expect(bridge.records).toEqual([
      expect.objectContaining({ id: "p1.1", status: "cancelled", code: "RUN_FINISHED" }),
    ]);
  });

  it("checks size and depth before parsing, and malformed input, each with its record", async () => {
    const { bridge, execute } = createBridge();
    expect(await answer(bridge, "util.echo", JSON.stringify({ s: "x".repeat(2_000) }))).toMatchObject({
      code: "ARGUMENT_TOO_LARGE",
    });
    expect(await answer(bridge, "util.echo", '{"a":{"b":{"c":{"d":{"e":1}}}}}')).toMatchObject({
      code: "ARGUMENT_TOO_LARGE",
    });
    expect(execute).not.toHaveBeenCalled();
    expect(bridge.records.map((record) => record.code)).toEqual(["ARGUMENT_TOO_LARGE", "ARGUMENT_TOO_LARGE"]);
  });

  it("stops at maxToolCalls: the call over the limit is refused and the run is told once", async () => {
    const { bridge, onCallLimit } = createBridge();
    for (let index = 0; index < 2; index++) expect(await answer(bridge, "util.echo", "{}")).toMatchObject({ ok: true });
    expect(await answer(bridge, "util.echo", "{}")).toMatchObject({ code: "TOOL_CALL_LIMIT" });
    expect(await answer(bridge, "util.echo", "{}")).toMatchObject({ code: "TOOL_CALL_LIMIT" });
    expect(onCallLimit).toHaveBeenCalledTimes(1);
    expect(bridge.records).toHaveLength(4);
  });

  it("drops __proto__ keys while parsing", async () => {
    const { bridge, execute } = createBridge();
    expect(await answer(bridge, "util.echo", '{"__proto__":{"polluted":true},"a":1}')).toMatchObject({
      ok: true,
      value: { a: 1 },
    });
    expect(Object.getPrototypeOf(execute.mock.calls[0]![0])).toBe(Object.prototype);
  });

  it("measures depth without counting brackets inside strings", () => {
    expect(exceedsJsonDepth('{"a":"[[[[[[[[[["}', 2)).toBe(false);
    expect(exceedsJsonDepth('[[["\\"]]]"]]]', 2)).toBe(true);
    expect(exceedsJsonDepth("[[]]", 2)).toBe(false);
  });
});
