// A session checks each program against the declarations of the tools it references, so a check
// does not grow with the catalog, and a tool's new observed type re-checks only the programs
// that use that tool. Counted on the real worker-backed TypeChecker, never timed.

import { afterAll, describe, expect, it } from "vitest";
import { compileRunContract } from "../src/program/run-contract.js";
import { TypeChecker } from "../src/program/type-checker.js";
import { defineTool, type ToolDefinition } from "../src/registry/define-tool.js";
import { RUNTIME_DECLARATIONS } from "../src/schema/generate-declarations.js";
import { Switchyard } from "../src/switchyard.js";

const SERVICES = ["crm", "billing", "tickets", "files", "mail"];
const NAMES = ["create_record", "get_record", "list_records", "update_record", "delete_record", "search_records"];

/** `size` tools: SERVICES x NAMES under numbered namespaces, each with its own schema objects. */
function catalog(size: number): ToolDefinition[] {
  const tools: ToolDefinition[] = [];
  for (let index = 0; tools.length < size; index++) {
    const service = `${SERVICES[index % SERVICES.length]}${Math.floor(index / (SERVICES.length * NAMES.length))}`;
    const name = NAMES[Math.floor(index / SERVICES.length) % NAMES.length];
    tools.push(
      defineTool({
        name: `${service}.${name}`,
        description: `${name} in ${service}: reads or changes one record of the ${service} service.`,
        inputSchema: {
          type: "object",
          properties: { id: { type: "string", description: "The record's id." }, limit: { type: "integer" } },
          required: ["id"],
        },
        execute: (input: unknown) => ({ id: (input as { id: string }).id, name: "Ada", tags: ["a"] }),
      }),
    );
  }
  return tools;
}

const checkers: TypeChecker[] = [];
const yards: Switchyard[] = [];
afterAll(async () => {
  await Promise.all(yards.map((yard) => yard.close()));
  await Promise.all(checkers.map((checker) => checker.close()));
});
/** A session on its own checker, once the session's background warm-up check is done. */
async function session(tools: ToolDefinition[]): Promise<{ yard: Switchyard; checker: TypeChecker }> {
  const checker = new TypeChecker();
  const yard = new Switchyard({ tools, typeChecker: checker });
  checkers.push(checker);
  yards.push(yard);
  await checker.check("return 0;", RUNTIME_DECLARATIONS);
  return { yard, checker };
}

describe("Switchyard check scope", () => {
  it("sends a 2-call program's check only the declarations of its two tools, at 2,500 tools", async () => {
    const { yard, checker } = await session(catalog(2_500));
    const whole = yard.declarations().length;
    expect(whole).toBeGreaterThan(500_000);
    const before = checker.stats;
    const checked = await yard.check(
      "const a = await tools.crm3.get_record({ id: 'a' });\nconst b = await tools.mail7.list_records({ id: 'b' });\nreturn [a, b];",
    );
    expect(checked.ok, checked.error?.message).toBe(true);
    expect(checker.stats.checked - before.checked).toBe(1);
    expect(checker.stats.referenceScans - before.referenceScans).toBe(1);
    // The runtime's declarations and two tools', against more than half a million characters for all.
    expect(checker.stats.declarationChars - before.declarationChars).toBeLessThan(RUNTIME_DECLARATIONS.length + 2_000);
  });

  it("gives an unknown tool, namespace or field the message and did-you-mean a check against every tool gives", async () => {
    const tools = catalog(400);
    const { yard } = await session(tools);
    const reference = new TypeChecker();
    checkers.push(reference);
    const whole = `${RUNTIME_DECLARATIONS}\n${yard.declarations()}`;
    for (const source of [
      "return await tools.crm3.get_recrod({ id: 'a' });",
      "return await tools.crn3.get_record({ id: 'a' });",
      "return await tools.crm3.get_record({ idd: 'a' });",
      "const { crm3 } = tools;\nreturn await crm3.serch_records({ id: 'a' });",
      "let args: Crm3GetRecordInptu | undefined;\nreturn args;",
    ]) {
      const checked = await yard.check(source);
      const expected = await reference.check(source, whole, { lint: true });
      expect(checked.ok, source).toBe(false);
      expect(checked.error?.diagnostics, source).toEqual(expected);
      expect(checked.error?.message, source).toMatch(/Did you mean|does not exist|not assignable/);
    }
  });

  it("keeps a cached check when another tool's observed type changes, and checks again when its own does", async () => {
    const { yard, checker } = await session(catalog(60));
    const usesB = "const b = await tools.billing0.get_record({ id: 'b' });\nreturn b.name;";
    expect((await yard.check(usesB)).ok).toBe(true);
    const first = checker.stats;

    // Tool A's first result gives it an observed type: the catalog's declarations change.
    const before = yard.declarations();
    expect((await yard.callTool("crm0.get_record", { id: "a" })).status).toBe("ok");
    expect(yard.declarations()).not.toBe(before);
    expect((await yard.check(usesB)).ok).toBe(true);
    expect(checker.stats.checked).toBe(first.checked);
    expect(checker.stats.cacheHits).toBe(first.cacheHits + 1);

    // B's own first result types `b`: the program is checked again, and a misspelled field now fails.
    expect((await yard.callTool("billing0.get_record", { id: "b" })).status).toBe("ok");
    expect((await yard.check(usesB)).ok).toBe(true);
    expect(checker.stats.checked).toBe(first.checked + 1);
    const misspelled = await yard.check("const b = await tools.billing0.get_record({ id: 'b' });\nreturn b.nmae;");
    expect(misspelled.error?.message).toContain("Property 'nmae' does not exist on type 'Billing0GetRecordObserved'");
  });

  it("names the run's contract types around the catalog's type names, as against the whole text", async () => {
    const program = defineTool({
      name: "program",
      description: "A bare tool whose input type is named ProgramInput.",
      inputSchema: { type: "object", properties: { id: { type: "string" } } },
      execute: () => ({}),
    });
    const { yard } = await session([...catalog(30), program]);
    const inputSchema = { type: "object", properties: { name: { type: "string" } }, required: ["name"] } as const;
    const wholeText = `${RUNTIME_DECLARATIONS}\n${yard.declarations()}`;
    expect(wholeText).toContain("interface ProgramInput {");
    expect(compileRunContract({ inputSchema, hasInput: true }, wholeText).types.declarations).toContain(
      "interface ProgramInput2 {",
    );
    const checked = await yard.check("return input.nmae;", { inputSchema, hasInput: true });
    expect(checked.error?.message).toContain("Property 'nmae' does not exist on type 'ProgramInput2'");
  });

  // A catalog changing while a run compiles (a source's list_changed, an MCP server restarting):
  // the run is checked against the snapshot it runs on. Before, a function-form program (compiled
  // before its check) was checked against the catalog as it was after its compile: a tool added
  // meanwhile passed the check and then failed TOOL_NOT_FOUND; one removed was a TYPE_ERROR.
  it("checks a function-form program against the catalog snapshot it runs on, not one changed during its compile", async () => {
    const tool = (name: string, source: string): ToolDefinition =>
      defineTool({
        name,
        source,
        description: `The ${name} tool.`,
        inputSchema: { type: "object" },
        execute: () => `reached ${name}`,
      });
    const yard = new Switchyard({ tools: [tool("old.tool", "first")] });
    yards.push(yard);
    const removedMeanwhile = yard.run("async () => await tools.old.tool({})");
    yard.registry.replaceSource("first", []);
    const removed = await removedMeanwhile;
    expect(removed.error).toBeUndefined();
    expect(removed.output).toBe("reached old.tool");
    const addedMeanwhile = yard.run("async () => await tools.fresh.tool({})");
    yard.registry.replaceSource("second", [tool("fresh.tool", "second")]);
    const added = await addedMeanwhile;
    expect(added.error?.code).toBe("TYPE_ERROR");
    expect(added.calls).toEqual([]);
  });

  // Two tools whose type names share a base (github.get_issue, github.getIssue) are numbered in the
  // whole text. Before, $describe and search answers rendered each answer afresh, so the model read
  // `GithubGetIssueInput` for the type the check calls `GithubGetIssueInput2`, and a program
  // written from the answer was refused with a type error about types it had never been shown.
  it("names a described tool's types as the check does, so a program written from the answer checks", async () => {
    const issueTool = (name: string, property: string): ToolDefinition =>
      defineTool({
        name,
        description: `Gets an issue by ${property}.`,
        inputSchema: { type: "object", properties: { [property]: { type: "string" } }, required: [property] },
        execute: (input) => input,
      });
    const yard = new Switchyard({
      tools: [issueTool("github.get_issue", "number"), issueTool("github.getIssue", "issue_key")],
    });
    yards.push(yard);
    const described = await yard.run(`return await tools.$describe("github.getIssue");`);
    const typeName = /interface (\w+) \{\s*issue_key: string;/.exec(String(described.output))?.[1];
    expect(typeName).toBe("GithubGetIssueInput2");
    const found = await yard.findAndLoad("getIssue issue_key");
    expect(found.declarations).toContain("getIssue(input: GithubGetIssueInput2)");
    // A tool programs cannot call (the session's results.read) is described beside them, its names apart.
    const both = yard.discovery.describeMany(["github.getIssue", "results.read"]).declarations;
    expect(both).toContain("getIssue(input: GithubGetIssueInput2)");
    expect(both).toContain("read(input: ResultsReadInput)");
    const run = await yard.run(
      `const query: ${typeName} = { issue_key: "ABC-1" };\nreturn await tools.github.getIssue(query);`,
    );
    expect(run.error).toBeUndefined();
    expect(run.output).toEqual({ issue_key: "ABC-1" });
  });

  it("checks a program that uses tools whole against the whole catalog", async () => {
    const { yard, checker } = await session(catalog(120));
    const whole = `${RUNTIME_DECLARATIONS}\n${yard.declarations()}`;
    const before = checker.stats.declarationChars;
    const checked = await yard.check("const names = Object.keys(tools);\nreturn names.length;");
    expect(checked.ok, checked.error?.message).toBe(true);
    expect(checker.stats.declarationChars - before).toBe(whole.length);
  });
});

describe("Switchyard check scope for a new program", () => {
  it("checks a new program that uses the last program's tools in one request, and one that uses others against theirs", async () => {
    const { yard, checker } = await session(catalog(200));
    const reference = new TypeChecker();
    checkers.push(reference);
    const whole = `${RUNTIME_DECLARATIONS}\n${yard.declarations()}`;
    expect((await yard.check("return await tools.crm3.get_record({ id: 'a' });")).ok).toBe(true);
    const first = checker.stats;

    // Same tool, new text: its references and its check travel in one request.
    expect((await yard.check("const record = await tools.crm3.get_record({ id: 'b' });\nreturn record;")).ok).toBe(
      true,
    );
    expect(checker.stats.guessedChecks - first.guessedChecks).toBe(1);
    expect(checker.stats.checked - first.checked).toBe(1);
    expect(checker.stats.referenceScans - first.referenceScans).toBe(1);

    // Another tool: the guess does not hold; the program is checked against its own tool, with the
    // diagnostics a check against the whole catalog gives.
    const other = "return await tools.mail7.list_records({ idd: 'b' });";
    const checked = await yard.check(other);
    expect(checked.ok).toBe(false);
    expect(checked.error?.diagnostics).toEqual(await reference.check(other, whole, { lint: true }));
    expect(checker.stats.guessedChecks - first.guessedChecks).toBe(1);
    expect(checker.stats.checked - first.checked).toBe(2);
  });

  it("checks a new program against its tool's new observed type, not the last program's declarations", async () => {
    const { yard, checker } = await session(catalog(60));
    expect((await yard.check("const r = await tools.crm0.get_record({ id: 'a' });\nreturn r.nmae;")).ok).toBe(true);
    // The tool's first result gives it an observed type: a misspelled field of it is now an error.
    expect((await yard.callTool("crm0.get_record", { id: "a" })).status).toBe("ok");
    const before = checker.stats.guessedChecks;
    const checked = await yard.check("const record = await tools.crm0.get_record({ id: 'a' });\nreturn record.nmae;");
    expect(checked.error?.message).toContain("Property 'nmae' does not exist on type 'Crm0GetRecordObserved'");
    expect(checker.stats.guessedChecks).toBe(before);
  });
});
