import { describe, expect, it } from "vitest";
import { splitWords, stem, tokenize } from "../../src/search/tokenize.js";

describe("splitWords", () => {
  // A query typed with a fullwidth keyboard, or pasted from styled text, found nothing before.
  it("reads compatibility forms as their plain letters: fullwidth, mathematical, ligatures", () => {
    expect(splitWords("ｒｅｆｕｎｄ ＯＲＤＥＲ")).toEqual(["refund", "order"]);
    expect(splitWords("𝐫𝐞𝐟𝐮𝐧𝐝 the 𝑖𝑛𝑣𝑜𝑖𝑐𝑒")).toEqual(["refund", "the", "invoice"]);
    expect(splitWords("ﬁle ＿list")).toEqual(["file", "list"]);
    expect(splitWords("café résumé")).toEqual(["café", "résumé"]);
  });

  // Lower-casing alone left STRASSE and straße two words, so a German catalog's tool was not found.
  it("folds ß to ss and a final sigma to sigma, as full case folding does", () => {
    expect(splitWords("STRASSE Straße straße")).toEqual(["strasse", "strasse", "strasse"]);
    expect(splitWords("ΛΟΓΟΣ λόγος")).toEqual(["λογοσ", "λόγοσ"]);
  });

  it("splits camelCase and PascalCase at case boundaries", () => {
    expect(splitWords("createContact")).toEqual(["create", "contact"]);
    expect(splitWords("ListInvoiceItems")).toEqual(["list", "invoice", "items"]);
  });

  it("keeps an upper-case run together and splits it from a following word", () => {
    expect(splitWords("getHTTPResponse")).toEqual(["get", "http", "response"]);
    expect(splitWords("parseJSON")).toEqual(["parse", "json"]);
  });

  it("splits snake_case, kebab-case and dotted names", () => {
    expect(splitWords("read_text_file")).toEqual(["read", "text", "file"]);
    expect(splitWords("get-tiny-image")).toEqual(["get", "tiny", "image"]);
    expect(splitWords("crm.listDeals")).toEqual(["crm", "list", "deals"]);
  });

  it("separates digits from letters", () => {
    expect(splitWords("v2Api")).toEqual(["v", "2", "api"]);
    expect(splitWords("ipv6Address")).toEqual(["ipv", "6", "address"]);
    expect(splitWords("2fa")).toEqual(["2", "fa"]);
  });
});

describe("stem", () => {
  it("strips plural s, es and ies", () => {
    expect(stem("invoices")).toBe(stem("invoice"));
    expect(stem("matches")).toBe("match");
    expect(stem("boxes")).toBe("box");
    expect(stem("addresses")).toBe("address");
    expect(stem("entries")).toBe("entry");
    expect(stem("queries")).toBe(stem("query"));
  });

  it("maps -ing and -ed forms onto the base word", () => {
    for (const form of ["creates", "created", "creating"]) expect(stem(form)).toBe(stem("create"));
    expect(stem("scheduled")).toBe(stem("schedule"));
    expect(stem("meetings")).toBe(stem("meeting"));
    expect(stem("meeting")).toBe(stem("meet"));
    expect(stem("stopped")).toBe("stop");
    expect(stem("billed")).toBe("bill");
    expect(stem("copied")).toBe("copy");
  });

  it("leaves words that only look inflected alone", () => {
    expect(stem("status")).toBe("status");
    expect(stem("statuses")).toBe("status");
    expect(stem("analysis")).toBe("analysis");
    expect(stem("string")).toBe("string");
    expect(stem("need")).toBe("need");
    expect(stem("is")).toBe("is");
  });

  it("does not strip -er, so user, order and folder stay distinct words", () => {
    expect(stem("user")).toBe("user");
    expect(stem("order")).toBe("order");
    expect(stem("folder")).not.toBe(stem("fold"));
  });

  it("keeps digit runs and short words as they are", () => {
    expect(stem("2024")).toBe("2024");
    expect(stem("ids")).toBe("ids");
  });
});

describe("tokenize", () => {
  it("drops stop words and stems the rest", () => {
    expect(tokenize("List all of the invoices for a customer")).toEqual([
      "list",
      "all",
      stem("invoices"),
      stem("customer"),
    ]);
  });

  it("gives identifiers and prose the same terms", () => {
    expect(tokenize("billing.createRefund")).toEqual(tokenize("billing create refunds"));
  });

  it("returns no terms for text of only stop words or punctuation", () => {
    expect(tokenize("the of a ... !!")).toEqual([]);
  });
});
