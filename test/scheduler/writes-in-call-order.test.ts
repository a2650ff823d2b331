// Writes serialized per namespace start in the order the program made them, approvals
// included: a write that waits for its approval keeps its place in line, so the writes made after
// it (needing no approval, or approved sooner) do not overtake it. Reads are not held back by it.

import { afterEach, describe, expect, it } from "vitest";
import { defineTool } from "../../src/registry/define-tool.js";
import { Switchyard } from "../../src/switchyard.js";

interface Deferred {
  promise: Promise<boolean>;
  resolve: (answer: boolean) => void;
}

function deferred(): Deferred {
  let resolve!: (answer: boolean) => void;
  const promise = new Promise<boolean>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/** A session with `crm.set` (a write), `crm.get` (a read); `ask` for inputs with `ask: true`. */
function createSession() {
  const began: string[] = [];
  const asked: { n: number; answer: Deferred }[] = [];
  const set = defineTool({
    name: "crm.set",
    description: "Sets a field.",
    effect: "write",
    inputSchema: {
      type: "object",
      properties: { n: { type: "integer" }, ask: { type: "boolean" } },
      required: ["n"],
    },
    execute: async (input: { n: number }) => {
      began.push(`set ${input.n}`);
      await new Promise((resolve) => setTimeout(resolve, 2));
      return { n: input.n };
    },
  });
  const get = defineTool({
    name: "crm.get",
    description: "Reads a field.",
    effect: "read",
    inputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
    execute: (input: { n: number }) => {
      began.push(`get ${input.n}`);
      return { n: input.n };
    },
  });
  const yard = new Switchyard({
    tools: [set, get],
    permissions: {
      rules: [{ tools: "crm.set", decision: "ask", when: (input) => (input as { ask?: boolean }).ask === true }],
      approve: (request) => {
        const answer = deferred();
        asked.push({ n: (request.input as { n: number }).n, answer });
        return answer.promise;
      },
    },
  });
  return { yard, began, asked };
}

const sessions: Switchyard[] = [];
afterEach(async () => {
  for (const yard of sessions.splice(0)) await yard.close();
});

async function until(condition: () => boolean): Promise<void> {
  // Generous: the first run of a process pays the type checker's cold start.
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline && !condition()) await new Promise((resolve) => setTimeout(resolve, 2));
  if (!condition()) throw new Error("condition not met");
}

describe("writes in call order", () => {
  it("starts six writes in call order when every second one waits for an approval answered in reverse", async () => {
    const { yard, began, asked } = createSession();
    sessions.push(yard);
    const running = yard.run(`await Promise.all([0, 1, 2, 3, 4, 5].map((n) => tools.crm.set({ n, ask: n % 2 === 0 })));
return "done";`);
    await until(() => asked.length === 3);
    // Nothing may start while write 0 waits for its approval: 1, 3, 5 need none but come after it.
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(began).toEqual([]);
    for (const { answer } of [...asked].reverse()) answer.resolve(true);
    const result = await running;
    expect(result.error).toBeUndefined();
    expect(began).toEqual(["set 0", "set 1", "set 2", "set 3", "set 4", "set 5"]);
  });

  it("lets the writes behind a denied one go on, in order, without running it", async () => {
    const { yard, began, asked } = createSession();
    sessions.push(yard);
    const running = yard.run(
      `return await Promise.allSettled([0, 1, 2, 3].map((n) => tools.crm.set({ n, ask: n === 1 })));`,
    );
    await until(() => asked.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    // 0 went ahead (it came first); 2 and 3 wait behind 1's place.
    expect(began).toEqual(["set 0"]);
    asked[0]!.answer.resolve(false);
    const result = await running;
    expect(began).toEqual(["set 0", "set 2", "set 3"]);
    expect((result.output as { status: string }[]).map((settled) => settled.status)).toEqual([
      "fulfilled",
      "rejected",
      "fulfilled",
      "fulfilled",
    ]);
  });

  it("gives up the place of a write whose run is cancelled while it waits for approval", async () => {
    const { yard, began, asked } = createSession();
    sessions.push(yard);
    const controller = new AbortController();
    const cancelled = yard.run(`return await tools.crm.set({ n: 0, ask: true });`, { signal: controller.signal });
    await until(() => asked.length === 1);
    controller.abort();
    expect((await cancelled).ok).toBe(false);
    // The namespace is free again: a later write runs at once.
    const later = await yard.run(`return await tools.crm.set({ n: 1 });`);
    expect(later.error).toBeUndefined();
    expect(began).toEqual(["set 1"]);
  });

  it("does not hold reads back behind a write that waits for approval", async () => {
    const { yard, began, asked } = createSession();
    sessions.push(yard);
    const running = yard.run(`const write = tools.crm.set({ n: 0, ask: true });
const read = await tools.crm.get({ n: 1 });
return [read.n, (await write).n];`);
    await until(() => began.includes("get 1"));
    expect(asked).toHaveLength(1);
    asked[0]!.answer.resolve(true);
    const result = await running;
    expect(result.output).toEqual([1, 0]);
    expect(began).toEqual(["get 1", "set 0"]);
  });
});
