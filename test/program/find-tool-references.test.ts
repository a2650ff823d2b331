import { describe, expect, it } from "vitest";
import {
  findToolReferences,
  MAX_REFERENCED_NAMES,
  type ToolReferences,
  WHOLE_CATALOG,
} from "../../src/program/find-tool-references.js";

const LIB_TYPES = new Set(["Promise", "Record", "Array", "Map", "Partial"]);
const referencesOf = (source: string): ToolReferences =>
  findToolReferences(source, "body", (name) => LIB_TYPES.has(name));
const membersOf = (source: string) => [...referencesOf(source).members].sort();

describe("findToolReferences", () => {
  it("reads tool calls written with dots, string keys and optional chaining", () => {
    expect(
      membersOf(
        [
          "const a = await tools.github.create_issue({});",
          'const b = await tools.github["list_issues"]({});',
          "const c = await tools['crm'].get_contact({});",
          "const d = await tools.crm?.find?.({});",
          "const e = await (tools).jira!.search({});",
          "type T = Parameters<typeof tools.jira.get>[0];",
        ].join("\n"),
      ),
    ).toEqual([
      ["crm", "find"],
      ["crm", "get_contact"],
      ["github", "create_issue"],
      ["github", "list_issues"],
      ["jira", "get"],
      ["jira", "search"],
    ]);
    expect(referencesOf("await tools.github.create_issue({});")).toMatchObject({ wholeCatalog: false, namespaces: [] });
  });

  it("follows destructuring and aliases of tools and of a namespace", () => {
    const source = [
      "const { github } = tools;",
      "await github.create_issue({});",
      "const { list_issues, get_issue: getIssue } = tools.github;",
      "const gh = tools.jira;",
      "await gh.search({});",
      "const { crm: { get_contact } } = tools;",
      "const { find } = gh;",
    ].join("\n");
    expect(membersOf(source)).toEqual([
      ["crm", "get_contact"],
      ["github", "create_issue"],
      ["github", "get_issue"],
      ["github", "list_issues"],
      ["jira", "find"],
      ["jira", "search"],
    ]);
    expect(referencesOf(source).wholeCatalog).toBe(false);
  });

  it("asks for the whole catalog when tools is used in a way it cannot follow", () => {
    for (const source of [
      "const key = 'github'; await tools[key].create_issue({});",
      "return Object.keys(tools);",
      "const all = { ...tools };",
      "inspect(tools);",
      "const t = tools; await t.github.create_issue({});",
      "const { github, ...rest } = tools;",
      "const { [name]: ns } = tools;",
      "return { tools };",
      "type All = typeof tools;",
      "for (const ns in tools) console.log(ns);",
    ]) {
      expect(referencesOf(source), source).toEqual(WHOLE_CATALOG);
    }
  });

  it("asks for a whole namespace when the namespace object is used whole", () => {
    for (const [source, namespace] of [
      ["inspect(tools.github);", "github"],
      ["const key = 'x'; await tools.github[key]({});", "github"],
      ["return Object.keys(tools.github);", "github"],
      ["const gh = tools.github; inspect(gh);", "github"],
      ["const gh = tools.github;", "github"],
      ["const { github = {} } = tools;", "github"],
      ["type G = keyof typeof tools.github;", "github"],
      ["const copy = { ...tools['github'] };", "github"],
      ["const f = tools.bare_tool; await f({});", "bare_tool"],
    ] as const) {
      const references = referencesOf(source);
      expect(references.wholeCatalog, source).toBe(false);
      expect(references.namespaces, source).toContain(namespace);
    }
  });

  it("treats one alias name bound to two namespaces as both namespaces whole", () => {
    const references = referencesOf(
      "async function a() { const ns = tools.github; await ns.create_issue({}); }\n" +
        "async function b() { const ns = tools.jira; await ns.search({}); }",
    );
    expect([...references.namespaces].sort()).toEqual(["github", "jira"]);
  });

  it("reads escaped identifiers as the names they spell, and keeps prototype names as plain data", () => {
    const references = referencesOf(
      [
        "await t\\u006fols.git\\u0068ub.create_issue({});",
        "await tools.__proto__.constructor({});",
        "await tools.github.__proto__({});",
        "await tools['constructor'].hasOwnProperty({});",
        "await tools.ünïcode.naïve({});",
      ].join("\n"),
    );
    expect([...references.members].sort()).toEqual([
      ["__proto__", "constructor"],
      ["constructor", "hasOwnProperty"],
      ["github", "__proto__"],
      ["github", "create_issue"],
      ["ünïcode", "naïve"],
    ]);
    expect(Object.getPrototypeOf(references.members[0])).toBe(Array.prototype);
    expect(({} as Record<string, unknown>).constructor).toBe(Object);
  });

  it("does not take properties, keys, labels or locals named tools for the tools object", () => {
    const references = referencesOf(
      [
        "const config = { tools: 1 };",
        "console.log(config.tools);",
        "tools: for (const x of [1]) break tools;",
        "interface Box { tools: string }",
      ].join("\n"),
    );
    expect(references).toMatchObject({ wholeCatalog: false, namespaces: [], members: [] });
  });

  it("lists type names the program neither declares nor finds in the lib, and generated-looking names", () => {
    const references = referencesOf(
      [
        "interface Row { id: string }",
        "type Pair<T> = [T, T];",
        "const input1: GithubCreateIssueInput = { title: 'x' };",
        "let rows: Record<string, Row> = {};",
        "let typo: GithubCreateIsueInput | Pair<number> | undefined;",
        "const n: Partial<Missing> = {};",
      ].join("\n"),
    );
    expect([...references.unresolvedTypeNames].sort()).toEqual([
      "GithubCreateIssueInput",
      "GithubCreateIsueInput",
      "Missing",
    ]);
    expect(references.typeNameCandidates).toEqual(expect.arrayContaining(["GithubCreateIssueInput"]));
  });

  it("falls back to the whole catalog past MAX_REFERENCED_NAMES distinct names, quickly", () => {
    const lines = Array.from({ length: MAX_REFERENCED_NAMES + 1 }, (_, index) => `tools.ns${index}.m${index};`);
    const started = performance.now();
    expect(referencesOf(lines.join("\n"))).toEqual(WHOLE_CATALOG);
    expect(performance.now() - started).toBeLessThan(5_000);
    const typeNames = Array.from({ length: MAX_REFERENCED_NAMES + 1 }, (_, index) => `let v${index}: T${index};`);
    expect(referencesOf(typeNames.join("\n"))).toEqual(WHOLE_CATALOG);
  });

  it("never throws: a deeply nested or broken program yields references or the whole catalog", () => {
    expect(() => referencesOf(`${"(".repeat(50_000)}tools.a.b${")".repeat(50_000)}`)).not.toThrow();
    expect(() => referencesOf("tools.a.b( {{{ ]] ")).not.toThrow();
    // Too deep for the parser itself: the whole catalog, not an exception.
    expect(referencesOf(`${"[".repeat(20_000)}tools.a.b${"]".repeat(20_000)}`)).toEqual(WHOLE_CATALOG);
    expect(referencesOf(`return ${"[".repeat(200)}tools.github.create_issue${"]".repeat(200)};`)).toMatchObject({
      wholeCatalog: false,
    });
  });
});
