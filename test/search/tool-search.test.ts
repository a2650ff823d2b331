import { describe, expect, it } from "vitest";
import {
  type SearchableTool,
  MAX_STEP_DESCRIPTION_CHARS,
  ToolSearch,
  extractParameters,
  namespaceMarkers,
  summarize,
} from "../../src/search/tool-search.js";

const tool = (name: string, description: string, properties: Record<string, unknown> = {}): SearchableTool => ({
  name,
  description,
  inputSchema: { type: "object", properties },
});

const crmTools = [
  tool("crm.createContact", "Create a person record in the CRM.", {
    email: { type: "string", description: "Primary email." },
  }),
  tool("crm.listDeals", "List deals in the pipeline."),
];
const emailTools = [
  tool("email.createContact", "Add a contact to the address book."),
  tool("email.sendMessage", "Send an email.", {
    to: { type: "array", items: { type: "string" }, description: "Recipients." },
  }),
];

const names = (search: ToolSearch, query: string, mode: "bm25" | "regex" = "bm25"): string[] => {
  const result = search.search(query, { mode, limit: 50 });
  if (!result.ok) throw new Error(result.error.message);
  return result.references.map((reference) => reference.name);
};

describe("ToolSearch", () => {
  it("returns references with a first-sentence summary and a score", () => {
    const search = new ToolSearch();
    search.setTools("crm", [
      tool("crm.getDeal", "Fetch one deal by id. Includes the owner, stage and amount of the deal."),
    ]);
    expect(search.search("deal")).toEqual({
      ok: true,
      references: [{ name: "crm.getDeal", summary: "Fetch one deal by id.", score: expect.any(Number) }],
    });
  });

  it("drops a namespace's tools from results when the namespace is emptied or swapped", () => {
    const search = new ToolSearch();
    search.setTools("crm", crmTools);
    search.setTools("email", emailTools);
    expect(names(search, "create contact")).toEqual(["crm.createContact", "email.createContact"]);

    search.setTools("crm", [tool("crm.listDeals", "List deals in the pipeline.")]);
    expect(names(search, "create contact")).toEqual(["email.createContact"]);
    expect(names(search, "contact", "regex")).toEqual(["email.createContact"]);

    expect(search.removeGroup("email")).toBe(2);
    expect(names(search, "create contact")).toEqual([]);
    expect(search.size).toBe(1);
  });

  it("updates one tool in place with upsert and forgets it with remove", () => {
    // Without expansion: the vocabulary relates "pipeline" to "opportunities", and this is about the old text.
    const search = new ToolSearch({ expansion: false });
    search.setTools("crm", crmTools);
    search.upsert(tool("crm.listDeals", "Show the open opportunities."), "crm");
    expect(names(search, "opportunities")).toEqual(["crm.listDeals"]);
    expect(names(search, "pipeline")).toEqual([]);
    expect(search.remove("crm.listDeals")).toBe(true);
    expect(search.remove("crm.listDeals")).toBe(false);
    expect(names(search, "opportunities")).toEqual([]);
  });

  it("finds a tool by a parameter description", () => {
    const search = new ToolSearch();
    search.setTools("email", emailTools);
    expect(names(search, "recipients")).toEqual(["email.sendMessage"]);
  });

  it("returns PATTERN_INVALID as data for a catastrophic regex and results for a normal one", () => {
    const search = new ToolSearch();
    search.setTools("crm", crmTools);
    const refused = search.search("(a+)+$", { mode: "regex" });
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.error.code).toBe("PATTERN_INVALID");
    expect(names(search, "create.*contact", "regex")).toEqual(["crm.createContact"]);
  });

  it("defaults to 5 references and clamps the limit to 50", () => {
    const search = new ToolSearch();
    search.setTools(
      "bulk",
      Array.from({ length: 60 }, (_, index) => tool(`bulk.listThing${index}`, "List things.")),
    );
    const count = (limit?: number): number => {
      const result = search.search("list things", limit === undefined ? {} : { limit });
      return result.ok ? result.references.length : -1;
    };
    expect(count()).toBe(5);
    expect(count(500)).toBe(50);
    expect(count(0)).toBe(1);
  });

  it("orders equal scores by catalog order, the same way on every run", () => {
    const search = new ToolSearch();
    search.setTools("b", [tool("b.archive", "Archive it.")]);
    search.setTools("a", [tool("a.archive", "Archive it.")]);
    expect(names(search, "archive")).toEqual(["b.archive", "a.archive"]);
    expect(names(search, "archive", "regex")).toEqual(["b.archive", "a.archive"]);
  });
});

describe("extractParameters", () => {
  it("collects names and descriptions from nested objects, items and $defs", () => {
    const { names: parameterNames, descriptions } = extractParameters({
      type: "object",
      properties: {
        customer: {
          type: "object",
          description: "Who.",
          properties: { billing_email: { type: "string", description: "Invoice email." } },
        },
        lines: {
          type: "array",
          items: { type: "object", properties: { sku: { type: "string", description: "Product code." } } },
        },
        ref: { $ref: "#/$defs/Address" },
      },
      $defs: { Address: { type: "object", properties: { postal_code: { type: "string", description: "ZIP." } } } },
    });
    expect(parameterNames).toEqual(["customer", "billing_email", "lines", "sku", "ref", "postal_code"]);
    expect(descriptions).toEqual(["Who.", "Invoice email.", "Product code.", "ZIP."]);
  });

  it("stops at the depth bound on a deeply nested schema", () => {
    let schema: Record<string, unknown> = { type: "string" };
    for (let depth = 0; depth < 50; depth += 1) schema = { type: "object", properties: { [`level${depth}`]: schema } };
    expect(extractParameters(schema).names.length).toBeLessThan(10);
  });
});

describe("summarize", () => {
  it("keeps the first sentence and does not cut at a dotted name", () => {
    expect(summarize("Calls crm.getDeal for you. Then more.")).toBe("Calls crm.getDeal for you.");
  });

  it("caps a long sentence at 160 characters with an ellipsis", () => {
    const summary = summarize("word ".repeat(100));
    expect(summary.length).toBeLessThanOrEqual(160);
    expect(summary.endsWith("…")).toBe(true);
  });

  it("indexes enum values and schema titles with the parameter names", () => {
    const schema = {
      type: "object",
      title: "Dialog options",
      properties: {
        action: { type: "string", enum: ["accept", "dismiss"] },
        mode: { const: "headless" },
        colorScheme: { type: "string", enum: Array.from({ length: 30 }, (_, index) => `scheme${index}`) },
      },
    };
    const { names } = extractParameters(schema);
    expect(names).toEqual(expect.arrayContaining(["Dialog options", "action", "accept", "dismiss", "headless"]));
    // At most 20 values of one enum.
    expect(names.filter((name) => name.startsWith("scheme"))).toHaveLength(20);
    const search = new ToolSearch({ expansion: false });
    search.setTools("browser", [tool("browser.handle", "Handle it.", schema.properties)]);
    expect(search.search("dismiss")).toMatchObject({ ok: true, references: [{ name: "browser.handle" }] });
  });

  it("indexes a word every tool name of a namespace repeats with the namespace, not as a name word", () => {
    const search = new ToolSearch({ expansion: false });
    search.setTools("slack", [
      tool("slack.slack_post_message", "Post a message to a channel."),
      tool("slack.slack_list_channels", "List channels."),
      tool("slack.slack_get_users", "Get users."),
    ]);
    search.setTools("notes", [tool("notes.slack_off", "Take a break from work.")]);
    // "slack" names the server of three tools and is a name word of one: the name word wins.
    expect(names(search, "slack")[0]).toBe("notes.slack_off");
    expect(names(search, "slack post message")[0]).toBe("slack.slack_post_message");
    // Regex still sees the full names.
    expect(names(search, "slack_post", "regex")).toEqual(["slack.slack_post_message"]);
  });
});

describe("ToolSearch.setToolsInSteps", () => {
  it("touches at most one slice of tools per step and, once every step ran, ranks exactly as setTools does", () => {
    const tools = Array.from({ length: 25 }, (_, index) =>
      tool(`svc.tool${index}`, index % 2 === 0 ? `Send an email number ${index}.` : `Create a contact ${index}.`),
    );
    // 23 stale tools: dropping them takes three runs of the one drop step.
    const stale = Array.from({ length: 23 }, (_, index) => tool(`old.stale${index}`, "An old tool about email."));
    const whole = new ToolSearch();
    whole.setTools("g", [...stale, ...tools]);
    whole.setTools("g", tools);
    const stepped = new ToolSearch();
    stepped.setTools("g", stale);
    const steps = stepped.setToolsInSteps("g", tools, 10);
    // List the dropped, collect markers in 3 slices, set them, drop (repeating), add in 3 slices.
    expect(steps).toHaveLength(9);
    for (const step of steps.slice(0, 5)) expect(step()).toBeFalsy();
    expect(stepped.size).toBe(23);
    const drop = steps[5]!;
    expect(drop()).toBe(true);
    expect(stepped.size).toBe(13);
    expect(drop()).toBe(true);
    expect(drop()).toBe(false);
    expect(stepped.size).toBe(0);
    steps[6]!();
    expect(stepped.size).toBe(10);
    for (const step of steps.slice(7)) step();
    expect(stepped.size).toBe(25);
    for (const query of ["send email", "create contact", "tool7", "stale"]) {
      expect(names(stepped, query)).toEqual(names(whole, query));
    }
  });

  it("gives each tool whose description fills a step's character budget an adding step of its own", () => {
    // Descriptions have no cap: twenty of them in one step would tokenize megabytes on one turn.
    const huge = `Ledger entry ${"word ".repeat(MAX_STEP_DESCRIPTION_CHARS / 5)}`;
    const tools = Array.from({ length: 20 }, (_, index) => tool(`big.tool${index}`, `${index} ${huge}`));
    const stepped = new ToolSearch();
    const steps = stepped.setToolsInSteps("g", tools, 100);
    // List the dropped, collect markers in 1 slice, set them, drop: then one step per tool.
    expect(steps).toHaveLength(4 + 20);
    for (const step of steps.slice(0, 4)) while (step() === true);
    steps[4]!();
    expect(stepped.size).toBe(1);
    for (const step of steps.slice(5)) step();
    expect(stepped.size).toBe(20);
    expect(names(stepped, "ledger entry").length).toBe(20);
  });

  it("removes a whole group at most a slice of tools per run, leaving other groups alone", () => {
    const search = new ToolSearch();
    search.setTools(
      "gone",
      Array.from({ length: 60 }, (_, index) => tool(`old.tool${index}`, "An old tool.")),
    );
    search.setTools("kept", [tool("new.tool", "A new tool.")]);
    const step = search.removeGroupInSteps("gone", 25);
    expect([step(), search.size]).toEqual([true, 36]);
    expect([step(), search.size]).toEqual([true, 11]);
    expect([step(), search.size]).toEqual([false, 1]);
    expect(step()).toBe(false);
    expect(names(search, "tool")).toEqual(["new.tool"]);
  });

  it("finds the same namespace markers a slice at a time as over the whole list", () => {
    const tools = Array.from({ length: 30 }, (_, index) => tool(`slack.slack_action_${index}`, `Does thing ${index}.`));
    const whole = new ToolSearch();
    whole.setTools("g", tools);
    const stepped = new ToolSearch();
    for (const step of stepped.setToolsInSteps("g", tools, 7)) while (step() === true);
    expect(names(stepped, "slack action 12")).toEqual(names(whole, "slack action 12"));
    expect(namespaceMarkers(tools).get("slack")).toEqual(new Set(["slack", "action"]));
  });
});
