import { describeSearchTool } from "../../src/model-tools/search-tools-tool.js";
import { describe, expect, it, vi } from "vitest";
import { Switchyard } from "../../src/switchyard.js";
import { defineTool, type ToolDefinition } from "../../src/registry/define-tool.js";

function tool(
  name: string,
  description: string,
  properties: Record<string, { type: string; description: string }> = {},
): ToolDefinition {
  return defineTool({
    name,
    description,
    effect: "read",
    inputSchema: { type: "object", properties, additionalProperties: false },
    execute: (input: unknown) => ({ tool: name, input }),
  });
}

function catalog(): ToolDefinition[] {
  const tools = [
    tool("billing.refundCharge", "Refund a captured charge, fully or partially.", {
      chargeId: { type: "string", description: "The charge to refund." },
    }),
    tool("billing.listInvoices", "List invoices of a customer, newest first.", {
      customerId: { type: "string", description: "Customer id." },
    }),
    tool("crm.createContact", "Create a contact in the CRM.", {
      email: { type: "string", description: "Email address." },
    }),
    tool("calendar.listEvents", "List calendar events in a time range.", {
      from: { type: "string", description: "Start of the range." },
    }),
  ];
  for (let index = 0; index < 20; index++)
    tools.push(tool(`filler.tool${index}`, `Filler tool number ${index} that does nothing useful.`));
  return tools;
}

describe("discovery in a session", () => {
  it("defers by the size of the declarations, not the number of tools, and keeps always-loaded tools up front", () => {
    // 24 small tools fit the default 8K-token budget: all are loaded, no search turn needed.
    const small = new Switchyard({ tools: catalog() });
    expect(small.catalogStats().declarationTokens).toBeLessThan(8_000);
    expect(small.discovery.deferring).toBe(false);
    expect(small.programTool().description).toContain("refundCharge(");
    // The same tools over a budget smaller than their declarations are deferred.
    const tokens = small.catalogStats().declarationTokens;
    const atBudget = new Switchyard({ tools: catalog(), discovery: { maxLoadedTokens: tokens } });
    expect(atBudget.discovery.deferring).toBe(false);
    const yard = new Switchyard({
      tools: catalog(),
      discovery: { alwaysLoaded: ["crm.*"], maxLoadedTokens: tokens - 1 },
    });
    expect(yard.discovery.deferring).toBe(true);
    const description = yard.programTool().description;
    expect(description).toContain("createContact(");
    expect(description).not.toContain("refundCharge(");
    expect(description).toContain("billing.refundCharge"); // listed by name
    expect(description).toContain("search_tools");
  });

  it("loads everything for a small catalog", () => {
    const yard = new Switchyard({ tools: catalog().slice(0, 3) });
    expect(yard.discovery.deferring).toBe(false);
    expect(yard.programTool().description).toContain("refundCharge(");
  });

  it("keeps the request prefix byte-identical before and after loading two tools", () => {
    const yard = new Switchyard({ tools: catalog(), discovery: { defer: true } });
    const before = JSON.stringify([yard.programTool(), describeSearchTool()]);
    const first = yard.searchAndLoad("refund a charge", { limit: 1 });
    const second = yard.searchAndLoad("list invoices for a customer", { limit: 1 });
    expect(first.references[0]?.name).toBe("billing.refundCharge");
    expect(second.references[0]?.name).toBe("billing.listInvoices");
    expect(first.declarations).toContain("refundCharge(input");
    expect(yard.discovery.loadedTools()).toEqual(["billing.refundCharge", "billing.listInvoices"]);
    expect(JSON.stringify([yard.programTool(), describeSearchTool()])).toBe(before);
    const stats = yard.catalogStats();
    expect(stats.tools).toBe(24);
    expect(stats.loadedTools).toBe(2);
    expect(stats.loadedTokens).toBeLessThan(stats.declarationTokens);
    expect(stats.tokenizer).toMatch(/o200k/);
  });

  it("searches from inside a program, describes a tool, and calls a tool that was never loaded", async () => {
    const yard = new Switchyard({ tools: catalog() });
    const result = await yard.run(`
      const found = await tools.$search("refund a charge", { limit: 3 });
      const declaration = await tools.$describe(found[0]!.name);
      const refunded = await tools.billing.refundCharge({ chargeId: "ch_1" });
      return { first: found[0]!.name, declares: declaration.includes("refundCharge(input"), refunded };`);
    expect(result.error).toBeUndefined();
    expect(result.output).toEqual({
      first: "billing.refundCharge",
      declares: true,
      refunded: { tool: "billing.refundCharge", input: { chargeId: "ch_1" } },
    });
    expect(result.calls.map((call) => call.tool)).toEqual(["$search", "$describe", "billing.refundCharge"]);
  });

  it("refuses a catastrophic regex inside a program with PATTERN_INVALID, quickly", async () => {
    const yard = new Switchyard({ tools: catalog() });
    const started = Date.now();
    const result = await yard.run(
      `const codes: string[] = [];
      for (const pattern of ["(a+)+$", ".{0,99}.{0,99}.{0,99}.{0,99}~"]) {
        try { await tools.$search(pattern, { mode: "regex" }); codes.push("no"); } catch (e) { codes.push((e as ToolCallError).code); }
      }
      return codes;`,
    );
    await yard.close();
    // The first is refused by the structural check, the second stopped at the worker's deadline.
    expect(result.output).toEqual(["PATTERN_INVALID", "PATTERN_INVALID"]);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("follows catalog changes: a replaced source is searchable at once and its old tools are gone", () => {
    const yard = new Switchyard({ tools: catalog() });
    yard.registry.replaceSource("mcp:tickets", [
      defineTool({
        ...tool("tickets.escalateTicket", "Escalate a support ticket to the on-call engineer."),
        source: "mcp:tickets",
      }),
    ]);
    expect(yard.searchTools("escalate ticket").ok && yard.searchTools("escalate ticket")).toMatchObject({
      references: [{ name: "tickets.escalateTicket" }],
    });
    yard.registry.replaceSource("mcp:tickets", []);
    const after = yard.searchTools("escalate ticket");
    expect(after.ok && after.references.map((reference) => reference.name)).not.toContain("tickets.escalateTicket");
  });

  it("finds a tool from a query typed in fullwidth or styled letters, as from the plain word", () => {
    const yard = new Switchyard({ tools: catalog(), discovery: { defer: true } });
    const names = (query: string): string[] => {
      const found = yard.searchTools(query);
      return found.ok ? found.references.map((reference) => reference.name) : [];
    };
    const plain = names("refund charge");
    expect(plain[0]).toBe("billing.refundCharge");
    expect(names("ｒｅｆｕｎｄ ｃｈａｒｇｅ")).toEqual(plain);
    expect(names("𝐫𝐞𝐟𝐮𝐧𝐝 𝐜𝐡𝐚𝐫𝐠𝐞")).toEqual(plain);
    void yard.close();
  });

  it("forgets a loaded tool its source no longer lists, before anything else reads the new catalog", () => {
    const yard = new Switchyard({ tools: catalog(), discovery: { defer: true } });
    const escalate = defineTool({ ...tool("tickets.escalateTicket", "Escalate a support ticket."), source: "mcp:t" });
    yard.registry.replaceSource("mcp:t", [escalate]);
    expect(yard.searchAndLoad("escalate ticket", { limit: 1 }).references[0]?.name).toBe("tickets.escalateTicket");
    yard.registry.replaceSource("mcp:t", []);
    expect(yard.discovery.loadedTools()).not.toContain("tickets.escalateTicket");
  });

  it("indexes on the next search every catalog change made since the last one, in order", () => {
    const yard = new Switchyard({ tools: catalog() });
    const escalate = (name: string) => defineTool({ ...tool(name, "Escalate a support ticket."), source: "mcp:t" });
    const found = () => {
      const answer = yard.searchTools("escalate ticket");
      return answer.ok ? answer.references.map((reference) => reference.name) : [];
    };
    expect(found()).toEqual([]);
    // Three changes with no search between them: only the last catalog may be found.
    yard.registry.replaceSource("mcp:t", [escalate("tickets.escalateOld")]);
    yard.registry.replaceSource("mcp:t", [escalate("tickets.escalateNew")]);
    yard.registry.replaceSource("mcp:u", [
      defineTool({ ...tool("desk.escalate", "Escalate a ticket."), source: "mcp:u" }),
    ]);
    expect(found().sort()).toEqual(["desk.escalate", "tickets.escalateNew"]);
    yard.registry.replaceSource("mcp:t", []);
    expect(found()).toEqual(["desk.escalate"]);
  });

  it("finds the current catalog when changes land while the background indexing is half done", async () => {
    const many = (prefix: string) =>
      Array.from({ length: 250 }, (_, index) =>
        defineTool({ ...tool(`${prefix}.escalate${index}`, `Escalate ticket ${index}.`), source: "mcp:t" }),
      );
    const yard = new Switchyard({ tools: catalog() });
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    yard.registry.replaceSource("mcp:t", many("old"));
    await turn();
    await turn();
    yard.registry.replaceSource("mcp:t", many("new"));
    await turn();
    const answer = yard.searchTools("escalate ticket 7", { limit: 50 });
    const found = answer.ok ? answer.references.map((reference) => reference.name) : [];
    expect(found).toContain("new.escalate7");
    expect(found.filter((name) => name.startsWith("old."))).toEqual([]);
    expect(yard.catalogStats().tools).toBe(catalog().length + 250);
    await yard.close();
  });

  it("warms its search up in the background without loading a tool or changing an answer", async () => {
    const yard = new Switchyard({ tools: catalog(), discovery: { defer: true } });
    const before = yard.searchTools("refund a charge", { limit: 10 });
    const loaded = yard.catalogStats().loadedTools;
    // The background's turns: the index's scoring data, then its warm-up searches of tool names.
    await vi.waitFor(() => expect(yard.discovery.backgroundDone).toBe(true), { timeout: 10_000, interval: 20 });
    expect(yard.catalogStats().loadedTools).toBe(loaded);
    expect(yard.searchTools("refund a charge", { limit: 10 })).toEqual(before);
    await yard.close();
  });

  it("ranks a name hit above a description hit", () => {
    const yard = new Switchyard({
      tools: [
        tool("docs.summarize", "Produce a short text."),
        tool("notes.write", "Write a note; it may summarize a meeting."),
      ],
    });
    const found = yard.searchTools("summarize");
    expect(found.ok && found.references.map((reference) => reference.name)).toEqual(["docs.summarize", "notes.write"]);
  });

  it("answers a search and a describe of several tools with one `declare const tools` wrapper", () => {
    const yard = new Switchyard({ tools: catalog(), discovery: { defer: true } });
    const answer = yard.searchAndLoad("invoices charge refund", { limit: 3 });
    expect(answer.references.length).toBeGreaterThan(1);
    expect(answer.declarations.match(/declare const tools/g)).toHaveLength(1);
    const described = yard.discovery.describeMany(["billing.refundCharge", "crm.createContact", "nope.missing"]);
    expect(described.found).toEqual(["billing.refundCharge", "crm.createContact"]);
    expect(described.unknown).toEqual(["nope.missing"]);
    expect(described.declarations.match(/declare const tools/g)).toHaveLength(1);
    expect(described.declarations).toContain("refundCharge(input");
    expect(described.declarations).toContain("createContact(input");
  });
});
