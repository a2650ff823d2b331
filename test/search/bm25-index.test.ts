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
});
