import { afterEach, describe, expect, it, vi } from "vitest";
import { defineTool, type ToolDefinition } from "../../src/registry/define-tool.js";
import { Switchyard } from "../../src/switchyard.js";
import { configErrorOf } from "../helpers/config-error.js";

const sessions: Switchyard[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.close()));
});

function session(tools: readonly ToolDefinition[], options: { defer?: boolean } = {}): Switchyard {
  const yard = new Switchyard({
    tools,
    typeCheck: "off",
    ...(options.defer === undefined ? {} : { discovery: { defer: options.defer } }),
  });
  sessions.push(yard);
  return yard;
}

function tool(name: string, description: string, schema?: Record<string, unknown>): ToolDefinition {
  return defineTool({
    name,
    description,
    effect: "read",
    inputSchema: schema ?? { type: "object", properties: { id: { type: "string", description: "The record's id." } } },
    execute: () => name,
  });
}

/** `size` tools across 50 namespaces; the last one alone says "zebra ledger". */
function catalog(size: number): ToolDefinition[] {
  return Array.from({ length: size }, (_, index) =>
    tool(
      `svc${index % 50}.op${index}`,
      index === size - 1 ? "Rotate the quarterly zebra ledger." : `Operation ${index} on records.`,
    ),
  );
}

/** Counts the turns of the event loop (macrotasks) until `promise` settles. */
async function turnsUntil<T>(promise: Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let settled = false;
  const tick = (): void => {
    if (settled) return;
    turns += 1;
    setImmediate(tick);
  };
  setImmediate(tick);
  const value = await promise;
  settled = true;
  return { value, turns };
}

describe("a large catalog", () => {
  it("answers a model's search made during the index build with the last registered tool, letting the loop turn meanwhile", async () => {
    const yard = session(catalog(5_000));
    const { value, turns } = await turnsUntil(yard.discovery.find("zebra ledger"));
    expect(value.ok && value.references[0]?.name).toBe("svc49.op4999");
    // The build was not finished in one go on the caller's turn: the loop went round while it waited.
    expect(turns).toBeGreaterThan(3);
  });

  it("answers a model's search still waiting for the index build when the session closes, from the whole catalog", async () => {
    const yard = session(catalog(5_000));
    const finding = yard.discovery.find("zebra ledger");
    // Closing stops the background turns the search waits for: it must not wait forever.
    await yard.close();
    const found = await finding;
    expect(found.ok && found.references[0]?.name).toBe("svc49.op4999");
  });

  it("answers a host's synchronous search made right after construction with every registered tool", () => {
    const yard = session(catalog(3_000));
    const found = yard.searchTools("zebra ledger");
    expect(found.ok && found.references[0]?.name).toBe("svc49.op2999");
    const last = yard.searchTools("operation 2998 records", { limit: 50 });
    expect(last.ok && last.references.map((reference) => reference.name)).toContain("svc48.op2998");
  });

  it("finds tools of a source swapped in while the first build is under way, and none of the old ones", async () => {
    const yard = session(catalog(2_000));
    yard.registry.replaceSource(
      "mcp:desk",
      Array.from({ length: 1_000 }, (_, index) =>
        defineTool({ ...tool(`desk.escalate${index}`, `Escalate ticket ${index} to a human.`), source: "mcp:desk" }),
      ),
    );
    await new Promise((resolve) => setImmediate(resolve));
    yard.registry.replaceSource("mcp:desk", [
      defineTool({ ...tool("desk.handover", "Hand the ticket over to a human."), source: "mcp:desk" }),
    ]);
    const found = await yard.discovery.find("ticket human", { limit: 10 });
    const names = found.ok ? found.references.map((reference) => reference.name) : [];
    expect(names[0]).toBe("desk.handover");
    expect(names.filter((name) => name.startsWith("desk.escalate"))).toEqual([]);
  });

  it("decides to defer 5,000 tools and lists the model's tools without counting every declaration's tokens", () => {
    const yard = session(catalog(5_000));
    expect(yard.discovery.deferring).toBe(true);
    const started = performance.now();
    const programTool = yard.programTool();
    // Counting every declaration took over a second here; a few hundred rendered ones take milliseconds.
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(programTool.description).toContain("search_tools");
    const stats = yard.catalogStats();
    expect(stats.tools).toBe(5_000);
    expect(stats.declarationTokens).toBeGreaterThan(8_000);
  });

  it("keeps an exact token decision near the budget: a small catalog is loaded, the same one over a tiny budget deferred", () => {
    const small = catalog(20);
    expect(session(small).discovery.deferring).toBe(false);
    const tight = new Switchyard({ tools: small, typeCheck: "off", discovery: { maxLoadedTokens: 50 } });
    sessions.push(tight);
    expect(tight.discovery.deferring).toBe(true);
  });
});

/** A tool whose schema counts how often its `properties` are read: the search index reads them once. */
function countedTool(): { tool: ToolDefinition; reads: () => number } {
  let reads = 0;
  const inputSchema: Record<string, unknown> = { type: "object" };
  Object.defineProperty(inputSchema, "properties", {
    enumerable: true,
    get: () => {
      reads += 1;
      return { id: { type: "string", description: "The ledger's id." } };
    },
  });
  const tool = defineTool({
    name: "ledger.rotate",
    description: "Rotate the quarterly zebra ledger.",
    inputSchema,
    execute: () => "rotated",
    source: "mcp:ledger",
  });
  return { tool, reads: () => reads };
}

/** A session (no warm-up: it compiles schemas too) running a program that waits in the sandbox until released. */
async function sessionWithRunInSandbox(): Promise<{ yard: Switchyard; release: () => void; ran: Promise<unknown> }> {
  let release = (): void => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let entered = (): void => {};
  const inSandbox = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const wait = defineTool({
    name: "gate.wait",
    description: "Waits to be released.",
    inputSchema: { type: "object" },
    execute: async () => {
      entered();
      await gate;
      return 1;
    },
  });
  const yard = new Switchyard({ tools: [...catalog(200), wait], typeCheck: "off", warmUp: false });
  sessions.push(yard);
  const ran = yard.run("return await tools.gate.wait({});");
  await inSandbox;
  return { yard, release, ran };
}

describe("a catalog indexed in the background while the process is idle", () => {
  it("builds, scores and warms up the search index of 2,000 tools with nothing else waking the event loop", async () => {
    // No session warm-up (its isolate and esbuild would wake the loop), sleeps of one timer each:
    // nothing wakes the loop between them. The index's turns must run on their own (as turns of
    // an unreferenced setImmediate they ran one or two a second here).
    const yard = new Switchyard({ tools: catalog(2_000), typeCheck: "off", warmUp: false });
    sessions.push(yard);
    // About 0.3 s of work; 4 s leaves room for a loaded machine (the old turns took 7 s here).
    for (let slept = 0; slept < 4 && !yard.discovery.backgroundDone; slept++) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    expect(yard.discovery.backgroundDone).toBe(true);
  }, 15_000);
});

describe("a catalog indexed in the background while programs run", () => {
  it("holds a change's indexing back while a run is in the sandbox, and indexes it once the run is out", async () => {
    const { yard, release, ran } = await sessionWithRunInSandbox();
    const counted = countedTool();
    yard.registry.replaceSource("mcp:ledger", [counted.tool]);
    const before = counted.reads();
    // Far longer than indexing one tool takes: the run in the sandbox holds it back.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(counted.reads()).toBe(before);
    release();
    expect(await ran).toMatchObject({ ok: true, output: 1 });
    await vi.waitFor(() => expect(counted.reads()).toBeGreaterThan(before), { timeout: 5_000, interval: 20 });
  });

  it("answers a model's search made while a run holds the index build back, with the tool registered meanwhile", async () => {
    const { yard, release, ran } = await sessionWithRunInSandbox();
    yard.registry.replaceSource("mcp:ledger", [countedTool().tool]);
    const found = await yard.discovery.find("zebra ledger");
    expect(found.ok && found.references[0]?.name).toBe("ledger.rotate");
    release();
    expect(await ran).toMatchObject({ ok: true });
  });
});

describe("a hostile large catalog", () => {
  it("registers 5,000 tools with names at the 128-character cap and long unicode descriptions, and finds one", async () => {
    const tools = Array.from({ length: 5_000 }, (_, index) =>
      tool(
        `${`n${index}`.padEnd(60, "x")}.${`${index}`.padEnd(67, "y")}`,
        `${index === 4_321 ? "Zebraübersicht 東京 " : ""}Outil numéro ${index}: Straße, İstanbul, 東京都. `.repeat(40),
      ),
    );
    for (const definition of tools) expect(definition.name.length).toBe(128);
    const yard = session(tools);
    const found = await yard.discovery.find("zebraübersicht", { limit: 3 });
    expect(found.ok && found.references[0]?.name).toBe(tools[4_321]!.name);
  });

  it("indexes only the first 32 KB of a 14 MB description, so its indexing step cannot hold the loop for seconds", async () => {
    const description = `Reconcile the petty cash drawer. ${"filler ".repeat(2_000_000)}zebra`;
    const yard = session([tool("big.ledger", description), ...catalog(100)]);
    const found = await yard.discovery.find("petty cash", { limit: 1 });
    expect(found.ok && found.references[0]?.name).toBe("big.ledger");
    // The word past the cap was never indexed, by BM25 or by regex.
    const past = await yard.discovery.find("zebra", { limit: 5 });
    expect(past.ok && past.references.map((reference) => reference.name)).toEqual(["svc49.op99"]);
    const regex = await yard.discovery.find("ze+bra", { mode: "regex", limit: 5 });
    expect(regex.ok && regex.references.map((reference) => reference.name)).toEqual(["svc49.op99"]);
  });

  it("refuses 5,000 tools of which two share a name with TOOL_NAME_DUPLICATE, registering none", () => {
    const tools = catalog(5_000);
    tools.push(tool("svc7.op7", "A second tool with a name already taken."));
    const thrown = configErrorOf(() => session(tools));
    expect(thrown.code).toBe("TOOL_NAME_DUPLICATE");
    expect(thrown.message).toContain("svc7.op7");
  });

  it("registers 2,000 tools whose schemas all differ and still refuses the one invalid schema among them", () => {
    const schemaOf = (index: number): Record<string, unknown> => ({
      type: "object",
      properties: { [`field${index}`]: { type: "string", minLength: index % 7 } },
      dependentRequired: { [`field${index}`]: [] },
    });
    const tools = Array.from({ length: 2_000 }, (_, index) =>
      tool(`s${index % 40}.t${index}`, "Does it.", schemaOf(index)),
    );
    expect(session(tools).registry.snapshot().tools.length).toBeGreaterThanOrEqual(2_000);
    const broken = [...tools, tool("bad.one", "Broken.", { type: "object", properties: { a: { type: "strnig" } } })];
    expect(() => new Switchyard({ tools: broken, typeCheck: "off" })).toThrow(/bad\.one/);
  });
});
