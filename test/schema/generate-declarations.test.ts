// generateDeclarations and generateToolDeclaration: layout of the `tools` object, examples,
// names, and sample programs that must (or must not) type-check against the declarations.

import { describe, expect, it } from "vitest";
import type { JsonSchema } from "../../src/contract.js";
import {
  type DeclarationTool,
  generateDeclarations,
  generateToolDeclaration,
  MAX_OBSERVED_TYPE_CHARS,
  MAX_OBSERVED_TYPES_CHARS,
  RUNTIME_DECLARATIONS,
} from "../../src/schema/generate-declarations.js";
import type { ObservedSchema } from "../../src/schema/observed-schema.js";
import { parseToolName } from "../../src/registry/tool-name.js";
import { compileTypeScript, formatDiagnostics } from "../helpers/compile-typescript.js";

function tool(name: string, fields: Partial<DeclarationTool> = {}): DeclarationTool {
  const { namespaceIdentifier, localIdentifier } = parseToolName(name);
  return {
    name,
    namespaceIdentifier,
    localIdentifier,
    description: `Does ${name}.`,
    inputSchema: { type: "object" },
    ...fields,
  };
}

const searchOrders = tool("orders.search", {
  description: "Search orders of one customer, newest first.",
  inputSchema: {
    type: "object",
    properties: {
      customerId: { type: "string", description: "The customer's ID." },
      status: { enum: ["open", "paid", "refunded"] },
      cursor: { type: "string" },
    },
    required: ["customerId"],
    additionalProperties: false,
  },
  outputSchema: {
    $defs: {
      order: {
        type: "object",
        properties: { id: { type: "string" }, totalCents: { type: "integer" } },
        required: ["id", "totalCents"],
      },
    },
    type: "object",
    properties: {
      orders: { type: "array", items: { $ref: "#/$defs/order" } },
      nextCursor: { type: ["string", "null"] },
    },
    required: ["orders", "nextCursor"],
  },
  inputExamples: [{ customerId: "c_1" }, { customerId: "c_2", status: "refunded", cursor: "o_100" }],
});
const refundOrder = tool("billing.refund", {
  inputSchema: { type: "object", properties: { orderId: { type: "string" } }, required: ["orderId"] },
});
const getOrder = tool("orders.get", {
  inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
});
const ping = tool("ping", { inputSchema: { type: "object", properties: { echo: { type: "string" } } } });

function compileWithRuntime(declarations: string, program: string): string {
  const files = { "/declarations.ts": declarations + RUNTIME_DECLARATIONS, "/program.ts": program };
  return formatDiagnostics(compileTypeScript(files));
}

describe("generateDeclarations", () => {
  it("groups tools by namespace in first-seen order, with bare tools at the root", () => {
    const text = generateDeclarations([searchOrders, ping, refundOrder, getOrder]);
    const tools = text.slice(text.indexOf("declare const tools"));
    const order = ["orders: {", "search(", "get(", "ping(", "billing: {", "refund("].map((marker) =>
      tools.indexOf(marker),
    );
    expect(order.every((position) => position >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((left, right) => left - right));
    expect(tools.match(/orders: \{/g)).toHaveLength(1);
    expect(tools).toMatch(/^ {2}ping\(/m);
  });

  it("renders the same text for the same tools, and follows their order", () => {
    const tools = [searchOrders, refundOrder, ping];
    expect(generateDeclarations(tools)).toBe(generateDeclarations(tools));
    const reversed = generateDeclarations([...tools].reverse());
    expect(reversed.indexOf("ping(")).toBeLessThan(reversed.indexOf("billing: {"));
  });

  it("renders each input example as a copyable @example call", () => {
    const text = generateDeclarations([searchOrders]);
    expect(text).toContain('     * @example\n     * await tools.orders.search({ "customerId": "c_1" })\n');
    expect(text).toContain(
      'await tools.orders.search({ "customerId": "c_2", "status": "refunded", "cursor": "o_100" })',
    );
  });

  it("pretty-prints a long example over several lines", () => {
    const long = { ...searchOrders, inputExamples: [{ customerId: "c_1", cursor: "x".repeat(80) }] };
    expect(generateDeclarations([long])).toContain('await tools.orders.search({\n     *   "customerId": "c_1",\n');
  });

  it("makes the parameter optional when the input schema requires nothing, and resolves to any without an outputSchema", () => {
    const text = generateDeclarations([ping, getOrder]);
    expect(text).toContain("ping(input?: PingInput): Promise<any>;");
    expect(text).toContain("get(input: OrdersGetInput): Promise<any>;");
  });

  it("declares the result type from outputSchema, with its $defs", () => {
    const text = generateDeclarations([searchOrders]);
    expect(text).toContain("search(input: OrdersSearchInput): Promise<OrdersSearchOutput>;");
    expect(text).toContain("interface OrdersSearchOutputOrder {");
    expect(text).toContain("orders: OrdersSearchOutputOrder[];");
  });

  it("names the original tool in the JSDoc when it differs from the identifier path", () => {
    const text = generateDeclarations([tool("weather.get-forecast"), tool("weather.current")]);
    expect(text).toContain('Tool name: "weather.get-forecast"');
    expect(text).toContain("get_forecast(input?: WeatherGetForecastInput)");
    expect(text.match(/Tool name:/g)).toHaveLength(1);
  });

  it("gives every type a distinct name when tools and $defs would collide", () => {
    const first = tool("a.b_c", { inputSchema: { $defs: { x: { type: "string" } }, $ref: "#/$defs/x" } });
    const second = tool("a_b.c", { inputSchema: { $defs: { x: { type: "number" } }, $ref: "#/$defs/x" } });
    const text = generateDeclarations([first, second]);
    expect(text).toContain("type ABCInput = ABCInputX;");
    expect(text).toContain("type ABCInput2 = ABCInput2X;");
    expect(compileWithRuntime(text, "")).toBe("");
  });

  it("type-checks a program that calls the tools correctly", () => {
    const declarations = generateDeclarations([searchOrders, refundOrder, ping]);
    const program = `
      async function main() {
        const page = await tools.orders.search({ customerId: "c_1", status: "paid" });
        const total = page.orders.reduce((sum, order) => sum + order.totalCents, 0);
        await Promise.all(page.orders.map((order) => tools.billing.refund({ orderId: order.id })));
        await tools.ping();
        const found = await tools.$search("refund", { limit: 3, mode: "bm25" });
        console.log(total, page.nextCursor ?? "last page", found[0]?.name, await tools.$describe("ping"));
        try {
          await tools.ping({ echo: "hi" });
        } catch (error) {
          console.error((error as ToolCallError).code);
        }
      }
      main();
    `;
    expect(compileWithRuntime(declarations, program)).toBe("");
  });

  it("rejects a program that misspells an input property", () => {
    const declarations = generateDeclarations([searchOrders]);
    const program = `async function main() { await tools.orders.search({ customerID: "c_1" }); }`;
    expect(compileWithRuntime(declarations, program)).toMatch(/customerID/);
  });

  it("rejects a program that reads a property the output does not have", () => {
    const declarations = generateDeclarations([searchOrders]);
    const program = `async function main() { (await tools.orders.search({ customerId: "c" })).items; }`;
    expect(compileWithRuntime(declarations, program)).toMatch(/TS2339/);
  });

  it("declares only the runtime members when there are no tools", () => {
    expect(generateDeclarations([])).toBe("declare const tools: ToolsRuntime & {};\n");
    expect(compileWithRuntime(generateDeclarations([]), "tools.$describe('x');")).toBe("");
  });
});

describe("generateToolDeclaration", () => {
  it("renders one tool's types and method with JSDoc, compiling on its own", () => {
    const text = generateToolDeclaration(searchOrders);
    expect(text).toContain("interface OrdersSearchInput {");
    expect(text).toContain("     * Search orders of one customer, newest first.\n");
    expect(text).toContain("declare const tools: {\n  orders: {\n");
    expect(text).not.toContain("ToolsRuntime");
    expect(formatDiagnostics(compileTypeScript({ "/tool.ts": text }))).toBe("");
  });
});

describe("generateDeclarations with hostile tools", () => {
  it("keeps descriptions with */, backticks, newlines and unicode inside their comments", () => {
    const hostile = tool("evil.tool", {
      description: "Line one */ declare const pwned: string; /*\nLine `two` ${x}\u2028🚀 \u202e",
      inputSchema: { type: "object", properties: { "*/": { type: "string", description: "*/ }; let x = 1; /*" } } },
      inputExamples: [{ "*/": "*/ end" }],
    });
    const text = generateDeclarations([hostile]);
    const program = `async function main() { await tools.evil.tool({ "*/": "ok" }); const y: string = pwned; }`;
    const diagnostics = compileWithRuntime(text, program);
    expect(diagnostics).toMatch(/Cannot find name 'pwned'/);
    expect(diagnostics.split("\n")).toHaveLength(1);
  });

  it("renders recursive $refs, 10,000 properties and 1000 levels of nesting without hanging", () => {
    let deep: JsonSchema = { type: "string" };
    for (let level = 0; level < 1000; level += 1) deep = { type: "object", properties: { next: deep } };
    const wide = Object.fromEntries(
      Array.from({ length: 10_000 }, (_, index) => [`field${index}`, { type: "string" }]),
    );
    const recursive: JsonSchema = {
      $defs: { node: { type: "object", properties: { next: { $ref: "#/$defs/node" }, self: { $ref: "#" } } } },
      $ref: "#/$defs/node",
    };
    const started = Date.now();
    const text = generateDeclarations([
      tool("deep.nest", { inputSchema: deep }),
      tool("wide.form", { inputSchema: { type: "object", properties: wide } }),
      tool("cycle.walk", { inputSchema: recursive, outputSchema: recursive }),
    ]);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(text).toContain("nested deeper than 64 levels");
    expect(compileWithRuntime(text, "")).toBe("");
  });
});

describe("generateDeclarations: observed output types", () => {
  const check = (tools: readonly DeclarationTool[], body: string): string =>
    compileWithRuntime(generateDeclarations(tools), `export async function main() {\n${body}\n}\n`);
  const observedCustomer = tool("crm.get_customer", {
    observedOutput: {
      results: 12,
      schema: {
        type: "object",
        properties: {
          id: { type: "string" },
          tier: { type: ["null", "string"] },
          tags: { type: "array" },
          profile: { type: "object", additionalProperties: {} },
          orders: {
            type: "array",
            items: { type: "object", properties: { total: { type: "number" } }, required: ["total"] },
          },
        },
        required: ["id", "tags", "profile", "orders"],
      },
    },
  });

  it("declares an observed type with a comment giving its count and saying it is not guaranteed", () => {
    const text = generateDeclarations([observedCustomer]);
    expect(text).toContain("Observed from 10+ results of this tool, which declares no output schema");
    expect(text).toContain("not guaranteed");
    expect(text).toContain("interface CrmGetCustomerObserved {");
    expect(text).toContain("get_customer(input?: CrmGetCustomerInput): Promise<CrmGetCustomerObserved>;");
    // What nobody has seen yet is trusted (`any`), not refused (`unknown`).
    expect(text).toContain("tags: any[];");
    expect(text).toContain("[key: string]: any;");
    expect(text).toContain("tier?: null | string;");
  });

  it("checks a program's use of it: listed fields pass, a misspelled one fails, unseen parts are any", () => {
    const ok = `const c = await tools.crm.get_customer();
      const total: number = c.orders.reduce((sum, order) => sum + order.total, 0);
      const first: string = c.tags[0];
      const city: string = c.profile.address.city;
      return [c.id.toUpperCase(), total, first, city, c.tier ?? "none"];`;
    expect(check([observedCustomer], ok)).toBe("");
    expect(check([observedCustomer], "const c = await tools.crm.get_customer(); return c.idd;")).toMatch(
      /Property 'idd' does not exist on type 'CrmGetCustomerObserved'/,
    );
  });

  it("prefers a declared outputSchema and leaves an empty observation out", () => {
    const declared = generateDeclarations([
      { ...observedCustomer, outputSchema: { type: "object", properties: { id: { type: "string" } } } },
    ]);
    expect(declared).toContain("CrmGetCustomerOutput");
    expect(declared).not.toContain("Observed");
    const anything = generateDeclarations([{ ...observedCustomer, observedOutput: { results: 3, schema: {} } }]);
    expect(anything).toContain("Promise<any>");
  });
});

describe("generateDeclarations: bounds on what tool results can put into declarations", () => {
  const check = (tools: readonly DeclarationTool[], body: string): string =>
    compileWithRuntime(generateDeclarations(tools), `export async function main() {\n${body}\n}\n`);

  // One definition for comments and literals: zero-width, bidi controls, the tags block (which
  // spells hidden ASCII: U+E0041 is a tag "A"), a variation selector, a C1 control.
  const HIDDEN_BY_CLASS = {
    "zero-width": ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"],
    "bidi controls": ["\u202a", "\u202e", "\u2066", "\u2067", "\u2069", "\u200e", "\u061c"],
    "tags block": ["\u{e0001}", "\u{e0041}", "\u{e007f}"],
    "other invisibles": ["\ufe0f", "\u0085", "\u00ad"],
  };

  for (const [name, characters] of Object.entries(HIDDEN_BY_CLASS)) {
    it(`shows no ${name} character raw, in comments nor in keys and literals`, () => {
      const hiddenText = `ok${characters.join("")}done`;
      const declared = tool("notes.find", {
        description: `Finds notes.${hiddenText}`,
        inputSchema: {
          type: "object",
          properties: { [hiddenText]: { type: "string", description: `The ${hiddenText} field.`, enum: [hiddenText] } },
        },
      });
      const text = generateDeclarations([declared]);
      for (const character of characters)
        expect(text, `U+${character.codePointAt(0)?.toString(16)}`).not.toContain(character);
      expect(text).toContain("ok\ufffd");
      // The key and the literal stay the same string, written with escapes.
      expect(JSON.parse(`"${text.match(/"ok(?:\\u[0-9a-f]{4})+done"/)?.[0].slice(1, -1)}"`)).toBe(hiddenText);
    });
  }

  it("escapes bidi, isolate, zero-width and control characters in quoted keys and string literals", () => {
    const hidden = ["\u202e", "\u2066", "\u2069", "\u200b", "\u200f", "\u061c", "\ufeff", "\u0085", "\u2028"];
    const keys = hidden.map((character, index) => `k${index}${character}gpj.exe`);
    const properties = Object.fromEntries(keys.map((key) => [key, { type: "string" } as const]));
    const observed = tool("files.list", {
      observedOutput: { results: 2, schema: { type: "object", properties, required: keys } },
    });
    const declared = tool("files.stat", {
      outputSchema: { type: "object", properties: { kind: { enum: ["a\u202eb", "c\u2066d"] } } },
    });
    const text = generateDeclarations([observed, declared]);
    for (const character of hidden) expect(text).not.toContain(character);
    expect(text).toContain('"k0\\u202egpj.exe": string;');
    expect(text).toContain('"k1\\u2066gpj.exe": string;');
    expect(text).toContain('"a\\u202eb" | "c\\u2066d"');
    // The escapes name the same keys: a program reading one still type-checks.
    expect(check([observed], 'const r = await tools.files.list(); return r["k0\\u202egpj.exe"].length;')).toBe("");
  });

  it("cuts one tool's observed type to MAX_OBSERVED_TYPE_CHARS, saying how many keys it leaves out", () => {
    const properties: Record<string, ObservedSchema> = {};
    for (let index = 0; index < 40; index++) {
      properties[`field_${"k".repeat(50)}_${index}`] = {
        type: "object",
        properties: { name: { type: "string" }, size: { type: "number" }, tags: { type: "array" } },
        required: ["name", "size", "tags"],
      };
    }
    const wide = tool("disk.scan", {
      observedOutput: { results: 5, schema: { type: "object", properties, required: Object.keys(properties) } },
    });
    const text = generateDeclarations([wide]);
    const observed = /interface DiskScanObserved \{[\s\S]*?\n\}/.exec(text)![0];
    expect(observed.length).toBeLessThanOrEqual(MAX_OBSERVED_TYPE_CHARS);
    expect(observed).toMatch(/\/\*\* \d+ more keys not shown \*\/\n {2}\[key: string\]: unknown;/);
    const shown = (observed.match(/^ {2}field_/gm) ?? []).length;
    expect(observed).toContain(`/** ${40 - shown} more keys not shown */`);
    expect(check([wide], `const r = await tools.disk.scan(); return r.field_${"k".repeat(50)}_0.size + 1;`)).toBe("");
  });

  it("shows observed types up to MAX_OBSERVED_TYPES_CHARS in one text; later tools resolve to any and say why", () => {
    const properties: Record<string, ObservedSchema> = {};
    for (let index = 0; index < 30; index++) properties[`column_${"c".repeat(40)}_${index}`] = { type: "string" };
    const schema: ObservedSchema = { type: "object", properties, required: Object.keys(properties) };
    const tools = Array.from({ length: 60 }, (_, index) =>
      tool(`db.table_${index}`, { observedOutput: { results: 3, schema } }),
    );
    const text = generateDeclarations(tools);
    const observedChars = [
      ...text.matchAll(/(?:\/\*\*(?:(?!\*\/)[\s\S])*\*\/\n)?interface DbTable\d+Observed \{[\s\S]*?\n\}/g),
    ]
      .map((match) => match[0].length)
      .reduce((sum, chars) => sum + chars, 0);
    expect(observedChars).toBeGreaterThan(MAX_OBSERVED_TYPES_CHARS / 2);
    expect(observedChars).toBeLessThanOrEqual(MAX_OBSERVED_TYPES_CHARS);
    expect(text).toContain("table_0(input?: DbTable0Input): Promise<DbTable0Observed>;");
    expect(text).toContain("table_59(input?: DbTable59Input): Promise<any>;");
    expect(text).toContain(
      "Its observed result type is not shown: the observed types before it fill this text's 40,000",
    );
    // Alone (describe_tools), the same tool shows its type.
    expect(generateToolDeclaration(tools[59]!)).toContain("Promise<DbTable59Observed>");
  });
});
