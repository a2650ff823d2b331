import { describe, expect, it } from "vitest";
import { Bm25Index, type SearchDocument } from "../../src/search/bm25-index.js";

const document = (id: string, fields: Partial<Omit<SearchDocument, "id">> = {}): SearchDocument => ({
  id,
  namespace: "",
  name: id,
  description: "",
  parameterNames: "",
  parameterDescriptions: "",
  ...fields,
});

describe("Bm25Index", () => {
  it("prepares its scoring data in calls of bounded work, a word shared by 2,000 documents included, answering as unprepared", () => {
    const documents = Array.from({ length: 2_000 }, (_, number) =>
      document(`d${number}`, { name: `record${number % 7} item`, description: `Shared words for item ${number}.` }),
    );
    const prepared = new Bm25Index();
    const unprepared = new Bm25Index();
    for (const indexed of documents) {
      prepared.add(indexed);
      unprepared.add(indexed);
    }
    let calls = 1;
    while (!prepared.prepare(500)) calls += 1;
    // 2,000 places in the dense view, postings of 2,000 documents for "item", "share" and "word",
    // 2,000 for the seven "recordN" and 2,000 for the numbers: 12,000 units, in calls of 500 at least
    // 12 even with whole terms overshooting (counted in terms, 500 at a time, it took 5).
    expect(calls).toBeGreaterThanOrEqual(12);
    expect(prepared.prepare(500)).toBe(true);
    for (const query of ["item", "record3 item", "shared words", "nothing"]) {
      expect(prepared.search(query, 10)).toEqual(unprepared.search(query, 10));
    }
  });

  it("starts its preparation over after a change, and still answers as an index never prepared", () => {
    const prepared = new Bm25Index();
    const fresh = new Bm25Index();
    for (let number = 0; number < 300; number++) {
      const added = document(`d${number}`, { description: `Words ${number % 9} and more.` });
      prepared.add(added);
      fresh.add(added);
    }
    prepared.prepare(200);
    prepared.remove("d5");
    fresh.remove("d5");
    const late = document("late", { name: "words", description: "Late words." });
    prepared.add(late);
    fresh.add(late);
    while (!prepared.prepare(200));
    expect(prepared.search("words more", 20)).toEqual(fresh.search("words more", 20));
  });

  it("ranks a name hit above a description hit of the same term", () => {
    const index = new Bm25Index();
    // The description-only document is added first, so insertion order cannot explain the result.
    index.add(document("a", { name: "listCharges", description: "Lists the refunds issued for each charge." }));
    index.add(document("b", { name: "createRefund", description: "Returns money to the card." }));
    index.add(document("c", { name: "getBalance", description: "Account balance." }));
    const hits = index.search("refund", 5);
    expect(hits.map((hit) => hit.id)).toEqual(["b", "a"]);
  });

  it("ranks a name hit above a parameter description hit", () => {
    const index = new Bm25Index();
    index.add(document("a", { name: "listEvents", parameterDescriptions: "Invoice the event belongs to." }));
    index.add(document("b", { name: "getInvoice" }));
    expect(index.search("invoice", 5).map((hit) => hit.id)).toEqual(["b", "a"]);
  });

  it("breaks equal scores by insertion order, and a replaced document keeps its place", () => {
    const index = new Bm25Index();
    for (const id of ["c", "a", "b"]) index.add(document(id, { description: "send a message" }));
    expect(index.search("message", 5).map((hit) => hit.id)).toEqual(["c", "a", "b"]);
    index.replace(document("c", { description: "send a message" }));
    expect(index.search("message", 5).map((hit) => hit.id)).toEqual(["c", "a", "b"]);
  });

  it("returns the same hits and scores for the same query every time", () => {
    const index = new Bm25Index();
    for (let i = 0; i < 30; i += 1)
      index.add(document(`tool${i}`, { description: `list item number ${i % 7} of files` }));
    const first = index.search("list files", 10);
    for (let run = 0; run < 5; run += 1) expect(index.search("list files", 10)).toEqual(first);
  });

  it("answers every query as a fresh index would, whatever was searched before it", () => {
    // More documents than a search's scratch lists first hold (64), so they grow mid-search; the
    // queries share documents, so a slot left over from one would change the next one's scores.
    const documents = Array.from({ length: 300 }, (_, i) =>
      document(`tool${i}`, {
        namespace: i % 2 === 0 ? "crm" : "files",
        name: i % 3 === 0 ? "createContact" : i % 3 === 1 ? "listFiles" : "sendMessage",
        description: `create or list ${i % 5 === 0 ? "contacts" : "files"} and send a message ${i % 7}`,
      }),
    );
    const indexOf = (): Bm25Index => {
      const index = new Bm25Index();
      for (const each of documents) index.add(each);
      return index;
    };
    const concepts = [
      { terms: ["create"], exact: true, alternatives: [["list"], ["send", "message"]] },
      { terms: ["contact"], exact: true, alternatives: [["files"]] },
    ];
    const reused = indexOf();
    const queries = ["create contact", "list files", "send message", "crm", "create contact"];
    const answers = queries.map((query) => reused.search(query, 400));
    answers.push(reused.searchConcepts(concepts, 400), reused.search("list files", 7));
    const fresh = [
      ...queries.map((query) => indexOf().search(query, 400)),
      indexOf().searchConcepts(concepts, 400),
      indexOf().search("list files", 7),
    ];
    expect(answers).toEqual(fresh);
    expect(answers[0]!.length).toBeGreaterThan(64);
  });

  it("forgets a removed document's terms and counts", () => {
    const index = new Bm25Index();
    index.add(document("a", { name: "uploadFile" }));
    index.add(document("b", { name: "downloadFile" }));
    expect(index.remove("a")).toBe(true);
    expect(index.remove("a")).toBe(false);
    expect(index.size).toBe(1);
    expect(index.search("upload", 5)).toEqual([]);
    expect(index.search("file", 5).map((hit) => hit.id)).toEqual(["b"]);
  });

  it("scores after incremental changes exactly as a fresh index of the same documents", () => {
    const incremental = new Bm25Index();
    incremental.add(document("a", { name: "createContact", description: "old text about contacts" }));
    incremental.add(document("b", { name: "deleteContact" }));
    incremental.add(document("c", { name: "listDeals" }));
    incremental.remove("b");
    incremental.replace(document("a", { name: "createContact", description: "Create a contact record." }));
    const fresh = new Bm25Index();
    fresh.add(document("a", { name: "createContact", description: "Create a contact record." }));
    fresh.add(document("c", { name: "listDeals" }));
    expect(incremental.search("create contact deals", 5)).toEqual(fresh.search("create contact deals", 5));
  });

  it("refuses to add an id twice", () => {
    const index = new Bm25Index();
    index.add(document("a"));
    expect(() => index.add(document("a"))).toThrow(RangeError);
  });

  it("returns nothing for a query of stop words or a non-positive limit", () => {
    const index = new Bm25Index();
    index.add(document("a", { description: "the file" }));
    expect(index.search("the of a", 5)).toEqual([]);
    expect(index.search("file", 0)).toEqual([]);
  });

  describe("name coverage", () => {
    // "wipe the staging db": wipe and db reach the first tool only through alternatives.
    const concepts = [
      { terms: ["wip"], exact: true, alternatives: [["drop"]] },
      { terms: ["stag"], exact: true, alternatives: [] },
      { terms: ["db"], exact: true, alternatives: [["databas"]] },
    ];
    const catalog = (nameCoverageWeight?: number): Bm25Index => {
      const index = new Bm25Index(nameCoverageWeight === undefined ? {} : { nameCoverageWeight });
      index.add(document("dropZone", { name: "staging_drop_zone_handler", description: "Handles drops." }));
      index.add(document("dropDatabase", { name: "drop_database", description: "Removes it." }));
      index.add(document("listTables", { name: "list_tables", description: "Lists tables." }));
      return index;
    };

    it("ranks a tool whose every name word the query matched above one with a stronger match on part of a longer name", () => {
      // Without coverage the exact "staging" in the longer name wins; the query accounts for all of drop_database.
      expect(catalog(0).searchConcepts(concepts, 5)[0]?.id).toBe("dropZone");
      expect(
        catalog()
          .searchConcepts(concepts, 5)
          .map((hit) => hit.id),
      ).toEqual(["dropDatabase", "dropZone"]);
    });

    it("multiplies a score by 1 + weight times the IDF-weighted share of the name's words matched", () => {
      const scores = (weight: number) =>
        new Map(
          catalog(weight)
            .searchConcepts(concepts, 5)
            .map((hit) => [hit.id, hit.score]),
        );
      const [plain, lifted] = [scores(0), scores(1)];
      expect(lifted.get("dropDatabase")).toBeCloseTo(2 * (plain.get("dropDatabase") as number), 10);
      // staging and drop of staging_drop_zone_handler; drop is in two of the three documents.
      const idf = (documents: number) => Math.log(1 + (3 - documents + 0.5) / (documents + 0.5));
      const share = (idf(1) + idf(2)) / (3 * idf(1) + idf(2));
      expect(lifted.get("dropZone")).toBeCloseTo((1 + share) * (plain.get("dropZone") as number), 10);
    });

    it("credits a phrase alternative only where all its words are in the name", () => {
      const readers = (nameCoverageWeight: number): Bm25Index => {
        const readers = new Bm25Index({ nameCoverageWeight });
        readers.add(document("a", { name: "read_file", description: "Reads it." }));
        readers.add(document("b", { name: "read_page", description: "Reads a file." }));
        return readers;
      };
      const [index, plain] = [readers(1), readers(0)];
      const query = [{ terms: ["open"], exact: true, alternatives: [["read", "fil"]] }];
      const score = (target: Bm25Index, id: string) =>
        target.searchConcepts(query, 5).find((hit) => hit.id === id)?.score;
      expect(score(index, "a")).toBeCloseTo(2 * (score(plain, "a") as number), 10);
      expect(score(index, "b")).toBeCloseTo(score(plain, "b") as number, 10);
    });

    it("refuses a negative weight", () => {
      expect(() => new Bm25Index({ nameCoverageWeight: -1 })).toThrow(RangeError);
    });
  });
});
