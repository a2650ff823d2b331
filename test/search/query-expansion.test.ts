// Query expansion: the vocabulary table, how a query becomes concepts, and the ranking rule that
// matters most: what the user typed beats what expansion found.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ExpansionTables, QUESTION_WEIGHT, QueryExpander } from "../../src/search/query-expansion.js";
import { stem, tokenize } from "../../src/search/tokenize.js";
import { type SearchableTool, ToolSearch } from "../../src/search/tool-search.js";
import { CONCEPT_GROUPS, ONE_WAY_TERMS } from "../../src/search/vocabulary.js";

const tool = (name: string, description: string, properties: Record<string, unknown> = {}): SearchableTool => ({
  name,
  description,
  inputSchema: { type: "object", properties },
});

const ranked = (search: ToolSearch, query: string): string[] => {
  const result = search.search(query, { limit: 50 });
  return result.ok ? result.references.map((reference) => reference.name) : [];
};

describe("the vocabulary table", () => {
  it("holds at least 300 groups of two or more entries, all searchable words", () => {
    expect(CONCEPT_GROUPS.length).toBeGreaterThanOrEqual(300);
    for (const group of CONCEPT_GROUPS) {
      expect(group.length, group.join(", ")).toBeGreaterThanOrEqual(2);
      expect(
        group.every((entry) => tokenize(entry).length > 0 || entry.split(" ").length > 1),
        group.join(", "),
      ).toBe(true);
    }
    expect(new QueryExpander().groupCount).toBe(CONCEPT_GROUPS.length);
  });

  it("builds the same expander a slice of entries at a time as at once", () => {
    const tables = new ExpansionTables(CONCEPT_GROUPS, ONE_WAY_TERMS);
    let calls = 1;
    while (!tables.build(100)) calls += 1;
    // Thousands of entries: 100 at a time takes many calls, none of which built the whole table.
    expect(calls).toBeGreaterThan(10);
    const sliced = new QueryExpander(tables);
    const whole = new QueryExpander();
    expect(sliced.groupCount).toBe(whole.groupCount);
    for (const query of ["refund my money back", "log in", "pull my request", "what do we sell", "notion wiki page"]) {
      expect(sliced.expand(query)).toEqual(whole.expand(query));
    }
  });

  it("finishes a table built part way when an expander is made from it", () => {
    const tables = new ExpansionTables(CONCEPT_GROUPS, ONE_WAY_TERMS);
    tables.build(10);
    expect(new QueryExpander(tables).expand("refund my money back")).toEqual(
      new QueryExpander().expand("refund my money back"),
    );
  });

  it("gives every one-way key and entry a searchable word", () => {
    for (const [key, entries] of Object.entries(ONE_WAY_TERMS)) {
      expect(tokenize(key), key).toHaveLength(1);
      expect(entries.length, key).toBeGreaterThan(0);
      for (const entry of entries) expect(tokenize(entry).length, `${key}: ${entry}`).toBeGreaterThan(0);
    }
  });
});

describe("QueryExpander", () => {
  const expander = new QueryExpander(
    [
      ["delete", "remove", "erase"],
      ["money back", "refund"],
      ["back", "previous page"],
      ["to", "destination"],
    ],
    {},
  );

  it("gives each content word its group's other entries as alternatives", () => {
    expect(expander.expand("delete the file")).toEqual([
      { terms: ["delet"], exact: true, alternatives: [["remov"], ["eras"]] },
      { terms: ["fil"], exact: true, alternatives: [] },
    ]);
  });

  it("matches a phrase of the table as one concept whose words do not expand alone", () => {
    expect(expander.expand("give me my money back")).toEqual([
      { terms: ["giv"], exact: true, alternatives: [] },
      { terms: ["money", "back"], exact: true, alternatives: [["refund"]] },
    ]);
  });

  it("matches a phrase with one word inserted after its first word, and reads that word on its own", () => {
    expect(expander.expand("money right back")).toEqual([
      { terms: ["money", "back"], exact: true, alternatives: [["refund"]] },
      { terms: ["right"], exact: true, alternatives: [] },
    ]);
    // The phrase in a row wins over a longer reading around a gap; two inserted words are too many.
    expect(expander.expand("money back back")).toEqual([
      { terms: ["money", "back"], exact: true, alternatives: [["refund"]] },
      { terms: ["back"], exact: true, alternatives: [["previous", "pag"]] },
    ]);
    expect(expander.expand("money back previous page")).toEqual([
      { terms: ["money", "back"], exact: true, alternatives: [["refund"]] },
      { terms: ["previous", "pag"], exact: true, alternatives: [["back"]] },
    ]);
    // "list every page" is no "list … pages": the inserted word opens a phrase of its own.
    const pages = new QueryExpander(
      [
        ["list pages", "map"],
        ["every page", "sitemap"],
      ],
      {},
    );
    expect(pages.expand("list every page")).toEqual([
      { terms: ["list"], exact: true, alternatives: [] },
      { terms: ["every", "pag"], exact: true, alternatives: [["sitemap"]] },
    ]);
    expect(pages.expand("list all page")[0]).toEqual({ terms: ["list", "pag"], exact: true, alternatives: [["map"]] });
    expect(expander.expand("money is not back")).toEqual([
      { terms: ["money"], exact: true, alternatives: [] },
      { terms: ["back"], exact: true, alternatives: [["previous", "pag"]] },
    ]);
  });

  it("lets an entry that needs its stop word trigger its group, but not stand for it with one word", () => {
    const tickets = new QueryExpander([["open", "file a", "raise"]], {});
    expect(tickets.expand("open a ticket")[0]).toEqual({ terms: ["open"], exact: true, alternatives: [["rais"]] });
    expect(tickets.expand("file a ticket")[0]).toEqual({
      terms: ["fil"],
      exact: true,
      alternatives: [["open"], ["rais"]],
    });
  });

  it("ignores a table entry that is only a stop word", () => {
    expect(expander.expand("go to page")).toEqual([
      { terms: ["go"], exact: true, alternatives: [] },
      { terms: ["pag"], exact: true, alternatives: [] },
    ]);
  });

  it("brings in a one-way key for its entries, and nothing for the key itself", () => {
    const oneWay = new QueryExpander([["page", "doc"]], { notion: ["wiki", "knowledge base"] });
    expect(oneWay.expand("wiki page")).toEqual([
      { terms: ["wiki"], exact: true, alternatives: [["notion"]] },
      { terms: ["pag"], exact: true, alternatives: [["doc"]] },
    ]);
    expect(oneWay.expand("knowledge base")).toEqual([
      { terms: ["knowledg", "bas"], exact: true, alternatives: [["notion"]] },
    ]);
    expect(oneWay.expand("notion")).toEqual([{ terms: ["notion"], exact: true, alternatives: [] }]);
    expect(oneWay.groupCount).toBe(1);
  });

  it("adds the reading action to a query that opens with a question word, and only then", () => {
    const concepts = expander.expand("what do we sell");
    expect(concepts[0]).toEqual({ terms: ["sell"], exact: true, alternatives: [] });
    expect(concepts[1]).toMatchObject({ terms: [], exact: false, weight: QUESTION_WEIGHT });
    expect(concepts[1]?.alternatives).toContainEqual(["list"]);
    expect(concepts[1]?.alternatives).toContainEqual(["get"]);
    for (const query of ["sell what we have", "how many do we sell", "what is it"]) {
      expect(
        expander.expand(query).every((concept) => concept.exact),
        query,
      ).toBe(true);
    }
  });

  it("returns no concepts for a query of stop words", () => {
    expect(expander.expand("what is it to them")).toEqual([]);
  });
});

describe("expanded ranking", () => {
  it("finds a tool by a word only the vocabulary relates to its name", () => {
    const search = new ToolSearch();
    search.setTools("fs", [
      tool("fs.create_directory", "Create a directory."),
      tool("fs.read_file", "Read a file."),
      tool("fs.write_file", "Write a file."),
    ]);
    expect(ranked(search, "make a new folder")[0]).toBe("fs.create_directory");
    expect(new ToolSearch({ expansion: false }).search("folder")).toEqual({ ok: true, references: [] });
  });

  it("finds a service's tools by what the service is for, and a file by its name's extension", () => {
    const search = new ToolSearch();
    search.setTools("notion", [
      tool("notion.API-create-a-comment", "Notion | Create comment"),
      tool("notion.API-post-page", "Notion | Create a page"),
    ]);
    search.setTools("airtable", [tool("airtable.create_comment", "Create a comment on a record")]);
    search.setTools("fs", [tool("fs.read_file", "Read a file."), tool("fs.read_page", "Read a page of results.")]);
    expect(ranked(search, "leave a remark on the wiki")[0]).toBe("notion.API-create-a-comment");
    expect(ranked(search, "read notes.txt")[0]).toBe("fs.read_file");
  });

  it("ranks the tool that reads above the one that changes the same thing for a question", () => {
    const search = new ToolSearch();
    search.setTools("shop", [
      tool("shop.create_product", "Creates a product."),
      tool("shop.list_products", "Lists the products."),
    ]);
    expect(ranked(search, "what products do we have")[0]).toBe("shop.list_products");
    expect(ranked(search, "products we have")[0]).toBe("shop.create_product");
  });

  it("ranks a tool whose name is the query above one found through synonyms everywhere", () => {
    const search = new ToolSearch();
    search.setTools("files", [
      tool("files.remove_document", "Remove a document. Removes the document and erases its copies.", {
        document: { type: "string", description: "The document to remove." },
      }),
      tool("files.delete_file", "Deletes an entry."),
      tool("files.list_files", "List every file and document."),
    ]);
    expect(ranked(search, "delete file")[0]).toBe("files.delete_file");
    expect(ranked(search, "delete_file")[0]).toBe("files.delete_file");
  });

  // Single-word entries of the table, grouped, for generated catalogs.
  const groups = CONCEPT_GROUPS.map((group) => [
    ...new Set(group.filter((entry) => /^[a-z]{4,}$/.test(entry) && tokenize(entry).length === 1)),
  ]).filter((words) => words.length >= 2);
  const fillers = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"];

  it("never lets expansion outrank an exact name match (property, random catalogs from the table)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: groups.length - 1 }),
        fc.integer({ min: 0, max: groups.length - 1 }),
        fc.nat(),
        fc.nat(),
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.constantFrom(...fillers), { minLength: 0, maxLength: 3 }),
        fc.array(fc.tuple(fc.constantFrom(...fillers), fc.constantFrom(...fillers)), { maxLength: 12 }),
        (first, second, pickA, pickB, repeats, extra, others) => {
          const [g1, g2] = [groups[first] as string[], groups[second] as string[]];
          const q1 = g1[pickA % g1.length] as string;
          const q2 = g2[pickB % g2.length] as string;
          const s1 = g1.find((word) => stem(word) !== stem(q1) && stem(word) !== stem(q2));
          const s2 = g2.find((word) => stem(word) !== stem(q1) && stem(word) !== stem(q2));
          if (s1 === undefined || s2 === undefined || stem(q1) === stem(q2)) return;
          const synonyms = `${s1} ${s2} `.repeat(repeats);
          const catalog = [
            tool(`lib.${q1}_${q2}${extra.map((word) => `_${word}`).join("")}`, "Does one thing."),
            tool(`lib.${s1}_${s2}`, `${synonyms}for everything.`, { [s1]: { type: "string", description: synonyms } }),
            ...others.map(([a, b], index) => tool(`lib.${a}_${b}_${index}`, `${a} ${b} ${index % 2 === 0 ? q1 : s2}.`)),
          ];
          const search = new ToolSearch();
          search.setTools("lib", catalog);
          for (const query of [`${q1} ${q2}`, `${q1}_${q2}`]) {
            const order = ranked(search, query);
            expect(order.indexOf(catalog[0]?.name as string), `${query}: ${order.join(", ")}`).toBe(0);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
