import { describe, expect, it, vi } from "vitest";
import { Switchyard } from "../../src/switchyard.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { findReferencedTools } from "../../src/permissions/referenced-tools.js";

function tools(executed: string[]) {
  const make = (name: string) =>
    defineTool({
      name,
      description: name,
      inputSchema: { type: "object" },
      execute: () => (executed.push(name), "ok"),
    });
  return [make("billing.refund"), make("billing.charge"), make("mail.send")];
}

describe("approving a whole program before it runs", () => {
  it("shows the program and the tools it names, once", async () => {
    const executed: string[] = [];
    const approveProgram = vi.fn(() => true);
    const approve = vi.fn(() => false);
    const yard = new Switchyard({
      tools: tools(executed),
      typeCheck: "off",
      permissions: { rules: [{ tools: "billing.*", decision: "ask" }], approve, approveProgram },
    });
    const source = "await tools.billing.refund({}); await tools.billing.refund({}); return await tools.mail.send({});";
    const result = await yard.run(source);
    expect(result.ok).toBe(true);
    expect(approveProgram).toHaveBeenCalledTimes(1);
    expect(approveProgram).toHaveBeenCalledWith(source, ["billing.refund", "mail.send"]);
    // The approved program's `ask` calls need no further approval.
    expect(approve).not.toHaveBeenCalled();
    expect(executed).toEqual(["billing.refund", "billing.refund", "mail.send"]);
  });

  it("runs nothing when the program is refused, and says why", async () => {
    const executed: string[] = [];
    const yard = new Switchyard({
      tools: tools(executed),
      typeCheck: "off",
      permissions: { approveProgram: () => ({ approved: false, reason: "refunds are frozen today" }) },
    });
    const result = await yard.run("return await tools.billing.refund({});");
    expect(result.error).toMatchObject({
      code: "PERMISSION_DENIED",
      message: expect.stringContaining("refunds are frozen today"),
    });
    expect(executed).toEqual([]);
    expect(result.calls).toEqual([]);
  });

  it("does not extend the approval to tools reached by computed names", async () => {
    const executed: string[] = [];
    const approve = vi.fn(() => false);
    const yard = new Switchyard({
      tools: tools(executed),
      typeCheck: "off",
      permissions: { rules: [{ tools: "billing.*", decision: "ask" }], approve, approveProgram: () => true },
    });
    const result = await yard.run(
      `const ns = "billing"; try { await (tools as any)[ns]["charge"]({}); } catch (e) { return (e as any).code; }`,
    );
    expect(result.output).toBe("PERMISSION_DENIED");
    expect(approve).toHaveBeenCalledTimes(1);
    expect(executed).toEqual([]);
  });

  it("finds member chains with spaces and bare tools, in order, without duplicates", () => {
    const yard = new Switchyard({ tools: tools([]) });
    const snapshot = yard.registry.snapshot();
    expect(
      findReferencedTools("tools . mail . send(); tools.billing.charge(); tools.mail.send(); tools.nope.x()", snapshot),
    ).toEqual(["mail.send", "billing.charge"]);
  });
});

describe("tools that are always denied", () => {
  it("are not offered to models, while predicate rules keep a tool offered", () => {
    const yard = new Switchyard({
      tools: tools([]),
      permissions: {
        rules: [
          { tools: "billing.refund", decision: "deny", reason: "frozen" },
          { tools: "billing.charge", decision: "deny", when: () => true },
        ],
      },
    });
    const description = yard.programTool().description;
    expect(description).not.toContain("refund(");
    expect(description).toContain("charge(");
    expect(yard.offers("billing.refund")).toBe(false);
    expect(yard.offers("mail.send")).toBe(true);
  });
});

describe("an ask rule with a predicate", () => {
  it("evaluates the predicate once per call and hands the approver the rule's reason", async () => {
    const executed: string[] = [];
    const when = vi.fn(() => true);
    const approve = vi.fn(() => true);
    const yard = new Switchyard({
      tools: tools(executed),
      permissions: {
        rules: [{ tools: "billing.refund", decision: "ask", when, reason: "refunds move money" }],
        approve,
      },
    });
    expect(await yard.callTool("billing.refund", {})).toMatchObject({ status: "ok" });
    expect(when).toHaveBeenCalledTimes(1);
    expect(approve).toHaveBeenCalledWith(
      expect.objectContaining({ tool: "billing.refund", reason: "refunds move money" }),
    );
    expect(executed).toEqual(["billing.refund"]);
  });
});
