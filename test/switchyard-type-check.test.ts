import { describe, expect, it } from "vitest";
import { TypeChecker } from "../src/program/type-checker.js";
import { Switchyard, type SwitchyardOptions } from "../src/switchyard.js";
import { defineTool } from "../src/registry/define-tool.js";
import { RUNTIME_DECLARATIONS } from "../src/schema/generate-declarations.js";
import { waitFor } from "./helpers/mcp-servers.js";
import { WORKER_KILLER } from "./helpers/worker-killer.js";

function createYard(typeCheck?: "error" | "warn" | "off", options: SwitchyardOptions = {}) {
  const calls: unknown[] = [];
  const search = defineTool({
    name: "orders.search",
    description: "Search a customer's orders.",
    effect: "read",
    inputSchema: {
      type: "object",
      properties: { customerId: { type: "string" }, cursor: { type: "string" } },
      required: ["customerId"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        orders: { type: "array", items: { type: "object", properties: { id: { type: "string" } }, required: ["id"] } },
        nextCursor: { type: ["string", "null"] },
      },
      required: ["orders", "nextCursor"],
    },
    execute: (input: unknown) => {
      calls.push(input);
      return { orders: [{ id: "o1" }], nextCursor: null };
    },
  });
  const yard = new Switchyard({ tools: [search], ...options, ...(typeCheck === undefined ? {} : { typeCheck }) });
  return { yard, calls };
}

describe("Switchyard.run with the type check", () => {
  it("refuses a misspelled field with TYPE_ERROR at the right line, and calls no tool", async () => {
    const { yard, calls } = createYard();
    const result = await yard.run(`const first = await tools.orders.search({ customerId: "c1" });
const ids = first.orders.map((order) => order.id);
const next = await tools.orders.search({ customerID: "c1" });
return ids;`);
    expect(result.ok).toBe(false);
    expect(result.error).toMatchObject({ code: "TYPE_ERROR", line: 3 });
    expect(result.error?.diagnostics?.[0]).toMatchObject({ line: 3, severity: "error" });
    expect(result.error?.message).toContain("customerID");
    expect(calls).toEqual([]);
    expect(result.calls).toEqual([]);
  });

  it("types tool results from outputSchema, so a wrong result field is caught", async () => {
    const { yard } = createYard();
    const result = await yard.run(`const page = await tools.orders.search({ customerId: "c1" });\nreturn page.cursor;`);
    expect(result.error).toMatchObject({ code: "TYPE_ERROR", line: 2 });
  });

  it("lets a program use the result of a tool without outputSchema (any), yet refuses a misspelled tool or input field", async () => {
    const lookup = defineTool({
      name: "crm.lookup",
      description: "Looks a contact up; no outputSchema.",
      effect: "read",
      inputSchema: { type: "object", properties: { email: { type: "string" } }, required: ["email"] },
      execute: () => ({ contact: { name: "Ada" } }),
    });
    const yard = new Switchyard({ tools: [lookup] });
    try {
      const used = await yard.run(
        `const found = await tools.crm.lookup({ email: "a@b.c" });\nreturn found.contact.name;`,
      );
      expect(used.error).toBeUndefined();
      expect(used.output).toBe("Ada");
      const misspelledTool = await yard.run(`return await tools.crm.lokup({ email: "a@b.c" });`);
      expect(misspelledTool.error?.code).toBe("TYPE_ERROR");
      const wrongField = await yard.run(`return await tools.crm.lookup({ mail: "a@b.c" });`);
      expect(wrongField.error?.code).toBe("TYPE_ERROR");
      expect(wrongField.calls).toEqual([]);
    } finally {
      await yard.close();
    }
  });

  it("runs the program in warn mode and reports the diagnostic as a warning", async () => {
    const { yard, calls } = createYard("warn");
    const warned = await yard.run(
      `const page = await tools.orders.search({ customerId: "c1" });\nconst z: number = "s";\nreturn [page.orders.length, z];`,
    );
    expect(warned.ok).toBe(true);
    expect(warned.output).toEqual([1, "s"]);
    expect(warned.warnings).toEqual([expect.objectContaining({ line: 2, severity: "error" })]);
    expect(calls).toHaveLength(1);
  });

  it("skips the check when typeCheck is off", async () => {
    const { yard } = createYard("off");
    const result = await yard.run(`const z: number = "s";\nreturn z;`);
    expect(result).toMatchObject({ ok: true, output: "s", warnings: [] });
  });

  it("warns about awaiting independent tool calls one at a time in a loop", async () => {
    const { yard } = createYard();
    const result = await yard.run(`const out: string[] = [];
for (const customerId of ["a", "b", "c"]) {
  const page = await tools.orders.search({ customerId });
  out.push(...page.orders.map((order) => order.id));
}
return out;`);
    expect(result.ok).toBe(true);
    expect(result.warnings).toEqual([
      expect.objectContaining({ code: "serial-await-in-loop", line: 3, severity: "warning" }),
    ]);
  });

  it("stays silent on Promise.all and on a cursor loop", async () => {
    const { yard } = createYard();
    const parallel = await yard.run(
      `const pages = await Promise.all(["a", "b"].map((customerId) => tools.orders.search({ customerId })));\nreturn pages.length;`,
    );
    const cursor = await yard.run(`let cursor: string | null = null;
const ids: string[] = [];
do {
  const page: { orders: { id: string }[]; nextCursor: string | null } = await tools.orders.search({ customerId: "a", ...(cursor === null ? {} : { cursor }) });
  ids.push(...page.orders.map((order) => order.id));
  cursor = page.nextCursor;
} while (cursor !== null);
return ids;`);
    expect(parallel).toMatchObject({ ok: true, warnings: [] });
    expect(cursor).toMatchObject({ ok: true, warnings: [] });
  });

  it("warns about a tool call whose promise is never awaited", async () => {
    const { yard } = createYard();
    const result = await yard.run(`tools.orders.search({ customerId: "a" });\nreturn 1;`);
    expect(result.warnings).toEqual([expect.objectContaining({ code: "floating-tool-call", line: 1 })]);
  });
});

describe("the session's checker warm-up", () => {
  const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

  it("starts the checker's process when the session is created, before any program", async () => {
    const checker = new TypeChecker();
    const { yard } = createYard("error", { typeChecker: checker });
    try {
      await settle();
      expect(checker.stats).toMatchObject({ workerStarts: 1, checked: 0 });
      // The first program's check waits for the warm-up in that process instead of starting another.
      expect(
        await yard.run(`const page = await tools.orders.search({ customerId: "a" });\nreturn page.orders.length;`),
      ).toMatchObject({ ok: true, output: 1 });
      expect(checker.stats).toMatchObject({ workerStarts: 1, checked: 1 });
    } finally {
      await yard.close();
      await checker.close();
    }
  });

  it("starts nothing when typeCheck is off or warmUpTypeChecker is false", async () => {
    const checker = new TypeChecker();
    const off = createYard("off", { typeChecker: checker }).yard;
    const cold = createYard("error", { typeChecker: checker, warmUpTypeChecker: false }).yard;
    try {
      await settle();
      expect(checker.stats.workerStarts).toBe(0);
    } finally {
      await off.close();
      await cold.close();
      await checker.close();
    }
  });
});

describe("Switchyard.run when the type check cannot complete", () => {
  it("refuses a program that kills the checker with TYPE_CHECK_FAILED, and still checks the programs queued behind it", async () => {
    // A small checker heap, so the real crash comes in seconds rather than tens of seconds.
    const checker = new TypeChecker({ memoryLimitMb: 128, timeoutMs: 120_000 });
    // The session's own warm-up check, done first, so the next check sent is the killer's.
    await checker.check("return 0;", RUNTIME_DECLARATIONS);
    const { yard, calls } = createYard("error", { typeChecker: checker });
    try {
      const killer = `await tools.orders.search({ customerId: "killer" });\n${WORKER_KILLER}`;
      const killing = yard.run(killer);
      await waitFor(() => checker.stats.checked === 2, 60_000, "the killer's check to be sent");
      // Queued behind the killer's check, in the process it is about to kill.
      const [wrong, right] = await Promise.all([
        yard.run(`await tools.orders.search({ customerID: "wrong" });\nreturn 1;`),
        yard.run(`const page = await tools.orders.search({ customerId: "right" });\nreturn page.orders.length;`),
      ]);
      const killed = await killing;
      expect(killed.error?.code).toBe("TYPE_CHECK_FAILED");
      expect(killed.error?.message).toMatch(/stopped 2 times while checking this program/);
      expect(killed.error?.message).toMatch(/does not run/);
      expect(killed.calls).toEqual([]);
      // Behind the crash, the other programs were checked, not run unchecked.
      expect(wrong.error).toMatchObject({ code: "TYPE_ERROR", line: 1 });
      expect(right).toMatchObject({ ok: true, output: 1 });
      expect(calls).toEqual([{ customerId: "right" }]);
      expect(checker.stats).toMatchObject({ checked: 5, retries: 1 });
    } finally {
      await yard.close();
      await checker.close();
    }
  }, 240_000);

  it("runs such a program in warn mode, with a warning that it was not type-checked", async () => {
    const checker = new TypeChecker({ memoryLimitMb: 128, timeoutMs: 120_000 });
    const { yard } = createYard("warn", { typeChecker: checker });
    try {
      const result = await yard.run(WORKER_KILLER);
      expect(result).toMatchObject({ ok: true, output: "object" });
      expect(result.warnings).toEqual([
        expect.objectContaining({
          code: "type-check-unavailable",
          message: expect.stringMatching(/not type-checked/),
        }),
      ]);
    } finally {
      await yard.close();
      await checker.close();
    }
  }, 240_000);

  it("refuses a program the compiler throws on (nesting past its stack) with TYPE_CHECK_FAILED, not TYPE_ERROR", async () => {
    const { yard } = createYard("error");
    try {
      const result = await yard.run(`return ${"[".repeat(10_000)}${"]".repeat(10_000)};`);
      expect(result.error?.code).toBe("TYPE_CHECK_FAILED");
      expect(result.error?.message).toMatch(/could not analyse this program/);
    } finally {
      await yard.close();
    }
  });

  it("refuses a program whose check outlives the checker's timeout with TYPE_CHECK_FAILED", async () => {
    const checker = new TypeChecker({ timeoutMs: 1 });
    const { yard, calls } = createYard("error", { typeChecker: checker });
    try {
      const result = await yard.run(`await tools.orders.search({ customerId: "a" });\nreturn 1;`);
      expect(result.error?.code).toBe("TYPE_CHECK_FAILED");
      expect(result.error?.message).toMatch(/longer than 1 ms/);
      expect(calls).toEqual([]);
    } finally {
      await yard.close();
      await checker.close();
    }
  });
});

/** A real checker whose answers are held until `release()`: the check itself runs as always. */
class HeldChecker extends TypeChecker {
  #release: () => void = () => undefined;
  readonly #held = new Promise<void>((resolve) => {
    this.#release = resolve;
  });
  release(): void {
    this.#release();
  }
  override check(...args: Parameters<TypeChecker["check"]>): ReturnType<TypeChecker["check"]> {
    const answer = super.check(...args);
    return this.#held.then(() => answer);
  }
}

describe("Switchyard.run checking a program beside its compile", () => {
  it.each([
    [
      "fails",
      "no tool",
      `await tools.orders.search({ customerId: "a" });\nconst total: number = "none";\nreturn total;`,
      0,
    ],
    [
      "passes",
      "its tool",
      `const page = await tools.orders.search({ customerId: "a" });\nreturn page.orders.length;`,
      1,
    ],
  ])(
    "lets no program call a tool before its check answers; one whose check %s then calls %s",
    async (_, _calls, source, expected) => {
      const checker = new HeldChecker();
      const { yard, calls } = createYard("error", { typeChecker: checker, warmUpTypeChecker: false });
      try {
        let settled = false;
        const running = yard.run(source).finally(() => {
          settled = true;
        });
        await waitFor(() => checker.stats.checked === 1, 30_000, "the check to be sent");
        // The compile (esbuild, a few ms) is long done; the program still waits for its check.
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(calls).toEqual([]);
        expect(settled).toBe(false);
        checker.release();
        const result = await running;
        expect(result.ok).toBe(expected === 1);
        if (expected === 0) expect(result.error).toMatchObject({ code: "TYPE_ERROR", line: 2 });
        expect(calls).toHaveLength(expected);
        // The check that ran beside the compile is the one that counted: no second check.
        expect(checker.stats.checked).toBe(1);
      } finally {
        await yard.close();
        await checker.close();
      }
    },
  );

  it("answers SYNTAX_ERROR, not the early check's findings, for a program that does not compile", async () => {
    const checker = new TypeChecker();
    const { yard, calls } = createYard("error", { typeChecker: checker, warmUpTypeChecker: false });
    try {
      const result = await yard.run(`await tools.orders.search({ customerId: "a" });\nconst a = ;`);
      expect(result.error).toMatchObject({ code: "SYNTAX_ERROR", line: 2 });
      expect(calls).toEqual([]);
    } finally {
      await yard.close();
      await checker.close();
    }
  });

  it("checks a fenced program once, and an expression program after its compile decided its form", async () => {
    const checker = new TypeChecker();
    const { yard } = createYard("error", { typeChecker: checker, warmUpTypeChecker: false });
    try {
      const fenced = await yard.run(
        "```ts\nconst page = await tools.orders.search({ customerId: 'a' });\nreturn page.orders.length;\n```",
      );
      expect(fenced).toMatchObject({ ok: true, output: 1 });
      expect(checker.stats.checked).toBe(1);
      const expression = await yard.run("async () => (await tools.orders.search({ customerId: 'a' })).orders.length");
      expect(expression).toMatchObject({ ok: true, output: 1 });
      const wrong = await yard.run("async () => (await tools.orders.search({ customerId: 'a' })).orderz");
      expect(wrong.error).toMatchObject({ code: "TYPE_ERROR" });
      expect(checker.stats.checked).toBe(3);
    } finally {
      await yard.close();
      await checker.close();
    }
  });
});
