import { describe, expect, it } from "vitest";
import type { SearchDocument } from "../../src/search/bm25-index.js";
import { MAX_PATTERN_LENGTH, checkPattern, searchByRegex } from "../../src/search/regex-search.js";

const document = (id: string, fields: Partial<Omit<SearchDocument, "id">> = {}): SearchDocument => ({
  id,
  namespace: id.includes(".") ? id.slice(0, id.indexOf(".")) : "",
  name: id.includes(".") ? id.slice(id.indexOf(".") + 1) : id,
  description: "",
  parameterNames: "",
  parameterDescriptions: "",
  ...fields,
});

const catalog: SearchDocument[] = [
  document("crm.listDeals", { description: "List deals; each deal may have invoices attached." }),
  document("billing.listInvoices", { description: "List invoices by customer." }),
  document("crm.listInvoices", { description: "Invoices synced to the CRM." }),
  document("billing.createRefund", { description: "Refund a charge." }),
];

describe("checkPattern", () => {
  it.each(["(a+)+$", "(a|a)*", "(.*)*", "(\\w+\\s?)*", "((ab)*c)+", "(x+x+)+y"])(
    "refuses the nested-quantifier shape %s",
    (pattern) => {
      const result = checkPattern(pattern);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.code).toBe("PATTERN_INVALID");
    },
  );

  it.each(["(a)\\1", "(?<x>a)\\k<x>", "(?=a)a", "(?!a)b", "(?<=a)b", "(?<!a)b"])(
    "refuses backreference or lookaround %s",
    (pattern) => {
      expect(checkPattern(pattern).ok).toBe(false);
    },
  );

  it.each([".*.*x", "a*a*", "\\w+\\s*\\w+"])("refuses adjacent unbounded quantifiers %s", (pattern) => {
    expect(checkPattern(pattern).ok).toBe(false);
  });

  it.each([
    "refund",
    "list.*invoice",
    "^crm\\.",
    "create.*(contact|customer)",
    "(get|list)_files?",
    "[a-z]+_[a-z]+",
    "a{2,5}",
  ])("accepts the ordinary pattern %s", (pattern) => {
    expect(checkPattern(pattern).ok).toBe(true);
  });

  it("refuses an empty pattern, an over-long one and a syntax error with a message", () => {
    for (const pattern of ["", "a".repeat(MAX_PATTERN_LENGTH + 1), "(unclosed", "[z-a]"]) {
      const result = checkPattern(pattern);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.message.length).toBeGreaterThan(10);
    }
  });

  // Compiled without the u flag, \p{L} was a literal "p{L}" and matched nothing a model meant.
  it("reads Unicode property escapes and non-ASCII case, and still takes the legacy syntax models write", () => {
    const unicode = checkPattern("^\\p{Lu}\\p{Ll}+ören$");
    expect(unicode.ok && unicode.regex.test("Zuhören")).toBe(true);
    const upper = checkPattern("ÉTAT");
    expect(upper.ok && upper.regex.test("état")).toBe(true);
    const legacy = checkPattern("get\\-user");
    expect(legacy.ok && legacy.regex.test("get-user")).toBe(true);
  });

  it("compiles case-insensitively", () => {
    const result = checkPattern("REFUND");
    expect(result.ok && result.regex.test("createRefund")).toBe(true);
  });
});

describe("searchByRegex", () => {
  it("refuses (a+)+$ quickly, as data, over text that would make it backtrack", () => {
    const hostile = [document("x", { description: `${"a".repeat(5_000)}!` })];
    const startedAt = performance.now();
    const result = searchByRegex(hostile, "(a+)+$", 5);
    expect(performance.now() - startedAt).toBeLessThan(50);
    expect(result).toEqual({
      ok: false,
      error: { code: "PATTERN_INVALID", message: expect.stringContaining("repeated group") },
    });
  });

  it("matches names above descriptions, ties in catalog order", () => {
    const result = searchByRegex(catalog, "invoice", 10);
    expect(result.ok && result.hits.map((hit) => hit.id)).toEqual([
      "billing.listInvoices",
      "crm.listInvoices",
      "crm.listDeals",
    ]);
  });

  it("finds a name by its words as well as its spelling", () => {
    const spaced = searchByRegex(catalog, "list invoice", 10);
    const dotted = searchByRegex(catalog, "^crm\\.list", 10);
    expect(spaced.ok && spaced.hits.map((hit) => hit.id)).toEqual(["billing.listInvoices", "crm.listInvoices"]);
    expect(dotted.ok && dotted.hits.map((hit) => hit.id)).toEqual(["crm.listDeals", "crm.listInvoices"]);
  });

  it("does not search past the per-field cap", () => {
    const long = [document("y", { description: `${"x".repeat(2_000)} needle` })];
    const result = searchByRegex(long, "needle", 5);
    expect(result.ok && result.hits).toEqual([]);
  });

  it("returns identical results on repeated runs", () => {
    const first = searchByRegex(catalog, "list|refund", 10);
    expect(searchByRegex(catalog, "list|refund", 10)).toEqual(first);
  });
});
