// A tool name a program builds from data a tool returned reaches the trace: the session's
// redactor applies to it before any listener (trace file, spans, timeline) sees it.

import { describe, expect, it } from "vitest";
import { defineTool } from "../../src/registry/define-tool.js";
import { Switchyard } from "../../src/switchyard.js";
import { TraceBus, type TraceEvent } from "../../src/trace/trace-events.js";

const SECRET = "trace-name-Known/Value+2026";

describe("TraceBus tool names", () => {
  it("redacts a secret in the name of a call the program built from a tool's result", async () => {
    const vault = defineTool({
      name: "vault.keys",
      description: "Returns the names of the vault's entries.",
      inputSchema: { type: "object", properties: {} },
      effect: "read",
      execute: async () => ({ names: [SECRET] }),
    });
    const yard = new Switchyard({ tools: [vault], redaction: { secrets: [{ value: SECRET, kind: "env:VAULT" }] } });
    const events: TraceEvent[] = [];
    yard.trace.subscribe((event) => events.push(event));
    try {
      const result = await yard.run(
        "const { names } = await tools.vault.keys({}); try { await (tools as any).vault[names[0]]({}); } catch {} return names.length;",
      );
      expect(result.ok, JSON.stringify(result.error)).toBe(true);
      const names = events.flatMap((event) => ("tool" in event && typeof event.tool === "string" ? [event.tool] : []));
      // The second call was made and traced, under its redacted name.
      expect(names).toContain("vault.keys");
      expect(names.some((name) => name.includes("[REDACTED:env:VAULT]"))).toBe(true);
      expect(JSON.stringify(events)).not.toContain(SECRET);
    } finally {
      await yard.close();
    }
  });

  it("passes names unchanged when no redaction is set, and keeps the listener's event otherwise whole", () => {
    const bus = new TraceBus();
    const seen: TraceEvent[] = [];
    bus.subscribe((event) => seen.push(event));
    const event: TraceEvent = {
      type: "tool-call-late-result",
      callId: "c1",
      tool: "a.secret",
      at: 2,
      settled: "fulfilled",
    };
    bus.emit(event);
    bus.redactToolNames((name) => name.replace("secret", "[REDACTED:x]"));
    bus.emit(event);
    expect(seen[0]).toBe(event);
    expect(seen[1]).toEqual({ ...event, tool: "a.[REDACTED:x]" });
    expect(event.tool).toBe("a.secret");
  });
});
