// Observed output types through the session: learned from results, shown in declarations and
// run_program, checked by the type checker, warned about on drift, kept in a file across sessions.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineTool } from "../src/registry/define-tool.js";
import { connectMcpSource, type McpSource } from "../src/sources/mcp/mcp-source.js";
import { Switchyard } from "../src/switchyard.js";
import { stdioServer, tempFolder } from "./helpers/mcp-servers.js";

describe("observed output types of a text-only MCP tool (server-everything)", () => {
  const yard = new Switchyard();
  let source: McpSource;

  beforeAll(async () => {
    source = await connectMcpSource(yard.registry, {
      namespace: "everything",
      transport: stdioServer("everything", [], { SWITCHYARD_PROBE: "on" }),
    });
  });
  afterAll(async () => {
    await source?.close();
    await yard.close();
  });

  it("declares get-env as any before a result, then as the observed type; a misspelled field is then a TYPE_ERROR", async () => {
    const tool = yard.registry.snapshot().get("everything.get-env");
    expect(tool?.definition.outputSchema).toBeUndefined();
    expect(yard.declarations()).toMatch(/get_env\(input\?: EverythingGetEnvInput\): Promise<any>;/);
    const versionBefore = yard.registry.version;

    // The first run: the server answers with JSON text, which is parsed and observed.
    const first = await yard.run("const env = await tools.everything.get_env(); return env.SWITCHYARD_PROBE;");
    expect(first.ok, first.error?.message).toBe(true);
    expect(first.output).toBe("on");

    const declarations = yard.declarations();
    expect(declarations).toMatch(/Observed from 1 result of this tool, which declares no output schema/);
    expect(declarations).toMatch(/interface EverythingGetEnvObserved \{[^}]*SWITCHYARD_PROBE: string;[^}]*\}/);
    expect(declarations).toMatch(/get_env\(input\?: EverythingGetEnvInput\): Promise<EverythingGetEnvObserved>;/);
    expect(yard.programTool().description).toContain("interface EverythingGetEnvObserved {");
    expect(yard.registry.version).toBe(versionBefore);

    const second = await yard.run("const env = await tools.everything.get_env(); return env.SWITCHYARD_PORBE;");
    expect(second.ok).toBe(false);
    expect(second.error?.code).toBe("TYPE_ERROR");
    expect(second.error?.message).toMatch(
      /Property 'SWITCHYARD_PORBE' does not exist on type 'EverythingGetEnvObserved'/,
    );
    expect(second.calls).toEqual([]);
  });

  it("observes plain text answers as their content blocks", async () => {
    const run = await yard.run('const echoed = await tools.everything.echo({ message: "hi" }); return echoed;');
    expect(run.output).toEqual([{ type: "text", text: "Echo: hi" }]);
    expect(yard.declarations()).toMatch(/type EverythingEchoObserved = \{\s+type: string;\s+text: string;\s+\}\[\];/);
    const typed = await yard.run(
      'const [block] = await tools.everything.echo({ message: "hi" }); return block ? block.text.slice(6) : null;',
    );
    expect(typed.output).toBe("hi");
    const misspelled = await yard.run(
      'const [block] = await tools.everything.echo({ message: "hi" }); return block?.txt;',
    );
    expect(misspelled.error?.message).toMatch(/Property 'txt' does not exist/);
  });

  it("leaves a tool with an outputSchema as declared", async () => {
    await yard.run('return await tools.everything.get_structured_content({ location: "Chicago" });');
    expect(yard.observedTypes?.snapshot().has("everything.get-structured-content")).toBe(false);
    expect(yard.declarations()).not.toContain("EverythingGetStructuredContentObserved");
  });
});

describe("observed output types in a session", () => {
  const shapes: unknown[] = [];
  const customers = defineTool({
    name: "crm.get_customer",
    description: "Looks a customer up.",
    inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
    effect: "read",
    execute: (input: { id: string }) => shapes.shift() ?? { id: input.id, name: "Ada", tier: "gold" },
  });
  const typed = defineTool({
    name: "crm.count",
    description: "Counts customers.",
    inputSchema: { type: "object" },
    outputSchema: { type: "object", properties: { count: { type: "number" } }, required: ["count"] },
    effect: "read",
    execute: () => ({ count: 3 }),
  });

  it("adds output-drift to the run whose result breaks the observed type, at the calling line, and widens it", async () => {
    const yard = new Switchyard({ tools: [customers] });
    try {
      await yard.run('return await tools.crm.get_customer({ id: "c1" });');
      const before = yard.declarations();
      expect(before).toMatch(/tier: string;/);

      shapes.push({ id: "c2", name: "Bob", tier: null });
      const drifted = await yard.run(
        'const a = 1;\nconst customer = await tools.crm.get_customer({ id: "c2" });\nreturn customer.name;',
      );
      expect(drifted.ok, drifted.error?.message).toBe(true);
      expect(drifted.warnings).toEqual([
        expect.objectContaining({ code: "output-drift", line: 2, severity: "warning" }),
      ]);
      expect(drifted.warnings[0]?.message).toMatch(
        /tools\.crm\.get_customer returned a result that does not fit its observed type \(\$\.tier is null, where the type has string\)/,
      );
      expect(yard.declarations()).toMatch(/tier: null \| string;/);

      // The next run is checked against the widened type: the same result fits it.
      shapes.push({ id: "c3", name: "Cy", tier: null });
      const next = await yard.run('return (await tools.crm.get_customer({ id: "c3" })).tier ?? "none";');
      expect(next.warnings).toEqual([]);
      expect(next.output).toBe("none");
    } finally {
      await yard.close();
    }
  });

  it("gives no warning for fields the type does not list, and one warning per tool and run", async () => {
    const yard = new Switchyard({ tools: [customers] });
    try {
      await yard.run('return await tools.crm.get_customer({ id: "c1" });');
      shapes.push({ id: "c2", name: "Bob", tier: "gold", since: 2020 });
      const extra = await yard.run('return await tools.crm.get_customer({ id: "c2" });');
      expect(extra.warnings).toEqual([]);
      shapes.push({ id: 5 }, { id: 6 }, { id: 7 });
      const many = await yard.run(
        'return await Promise.all(["a", "b", "c"].map((id) => tools.crm.get_customer({ id })));',
        { typeCheck: "off" },
      );
      expect(many.warnings.filter((warning) => warning.code === "output-drift")).toHaveLength(1);
    } finally {
      await yard.close();
    }
  });

  it("keeps run_program byte-stable while results fit and their count stays in its band, and the catalog version throughout", async () => {
    const yard = new Switchyard({ tools: [customers, typed] });
    try {
      const version = yard.registry.version;
      const initial = yard.programTool();
      expect(initial.description).not.toContain("*Observed");
      expect(yard.programTool()).toBe(initial);
      await yard.run('return await tools.crm.get_customer({ id: "c1" });');
      const afterFirst = yard.programTool();
      expect(afterFirst).not.toBe(initial);
      expect(afterFirst.description).toContain("Types named *Observed come from earlier results");
      await yard.run('return await tools.crm.get_customer({ id: "c2" });');
      const afterSecond = yard.programTool();
      expect(afterSecond.description).toContain("Observed from 2+ results");
      for (let index = 0; index < 6; index++) await yard.run('return await tools.crm.get_customer({ id: "c" });');
      expect(yard.programTool()).toBe(afterSecond);
      await yard.run("return await tools.crm.count();");
      expect(yard.programTool()).toBe(afterSecond);
      expect(yard.registry.version).toBe(version);
      expect((await yard.run("return 1;")).catalogVersion).toBe(version);
    } finally {
      await yard.close();
    }
  });

  it("leaves the choice to defer, and the catalog's token counts, to the declared types", async () => {
    const yard = new Switchyard({ tools: [customers], discovery: { maxLoadedTokens: 200 } });
    try {
      const before = yard.catalogStats();
      const deferring = yard.discovery.deferring;
      shapes.push(Object.fromEntries(Array.from({ length: 30 }, (_, index) => [`field${index}`, "a long value"])));
      await yard.run('return await tools.crm.get_customer({ id: "c1" });');
      expect(yard.catalogStats()).toEqual(before);
      expect(yard.discovery.deferring).toBe(deferring);
    } finally {
      await yard.close();
    }
  });

  it("learns from direct calls too, and shows the type in $describe", async () => {
    const yard = new Switchyard({ tools: [customers] });
    try {
      await yard.callTool("crm.get_customer", { id: "c1" });
      const described = await yard.run('return await tools.$describe("crm.get_customer");');
      expect(described.output).toMatch(/interface CrmGetCustomerObserved \{/);
      expect(described.output).toMatch(/Promise<CrmGetCustomerObserved>/);
    } finally {
      await yard.close();
    }
  });

  it("lets a program reach a field the type does not list with an in check, as the instructions say", async () => {
    const yard = new Switchyard({ tools: [customers] });
    try {
      await yard.run('return await tools.crm.get_customer({ id: "c1" });');
      shapes.push({ id: "c2", name: "Bob", tier: "gold", vip: true });
      const result = await yard.run(
        'const c = await tools.crm.get_customer({ id: "c2" }); return "vip" in c ? c.vip === true : false;',
      );
      expect(result.ok, result.error?.message).toBe(true);
      expect(result.output).toBe(true);
    } finally {
      await yard.close();
    }
  });

  it("stays off with observedTypes: false: such tools resolve to any", async () => {
    const yard = new Switchyard({ tools: [customers], observedTypes: false });
    try {
      await yard.run('return await tools.crm.get_customer({ id: "c1" });');
      expect(yard.observedTypes).toBeUndefined();
      expect(yard.declarations()).toMatch(/get_customer\(input: CrmGetCustomerInput\): Promise<any>;/);
      const anything = await yard.run('return (await tools.crm.get_customer({ id: "c1" })).whatever ?? null;');
      expect(anything.ok, anything.error?.message).toBe(true);
    } finally {
      await yard.close();
    }
  });

  it("keeps the types in a file, so the next session starts typed", async () => {
    const folder = tempFolder("observed-session");
    const file = join(folder.path, "observed-types.json");
    try {
      const first = new Switchyard({ tools: [customers], observedTypes: { file } });
      await first.run('return await tools.crm.get_customer({ id: "c1" });');
      await first.close();
      expect(JSON.parse(readFileSync(file, "utf8")).tools["crm.get_customer"]).toMatchObject({ results: 1 });

      const second = new Switchyard({ tools: [customers], observedTypes: { file } });
      try {
        expect(second.declarations()).toContain("Promise<CrmGetCustomerObserved>");
        expect(second.programTool().description).toContain("interface CrmGetCustomerObserved {");
        const misspelled = await second.run('return (await tools.crm.get_customer({ id: "c1" })).nmae;');
        expect(misspelled.error?.code).toBe("TYPE_ERROR");
      } finally {
        await second.close();
      }
    } finally {
      folder.remove();
    }
  });
});

describe("observed output types against hostile results", () => {
  it("keeps run_program's description and the observed-types file small after a result with 40 keys of 50,000 characters", async () => {
    const folder = tempFolder("observed-bounds");
    const file = join(folder.path, "observed.json");
    const huge = Object.fromEntries(Array.from({ length: 40 }, (_, index) => [`${index}${"k".repeat(50_000)}`, index]));
    const yard = new Switchyard({
      typeCheck: "off",
      observedTypes: { file },
      tools: [
        defineTool({
          name: "feed.read",
          description: "Reads the feed.",
          effect: "read",
          inputSchema: { type: "object" },
          execute: () => ({ items: huge, next: null }),
        }),
      ],
    });
    try {
      const before = yard.programTool().description.length;
      const run = await yard.run("const feed = await tools.feed.read(); return Object.keys(feed.items).length;");
      expect(run.output).toBe(40);
      await yard.observedTypes?.save();
      const after = yard.programTool().description;
      expect(after).toContain("interface FeedReadObserved");
      expect(after.length - before).toBeLessThan(1_000);
      expect(yard.declarations()).not.toContain("kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk");
      expect(readFileSync(file, "utf8").length).toBeLessThan(1_000);
    } finally {
      await yard.close();
      folder.remove();
    }
  });
});
