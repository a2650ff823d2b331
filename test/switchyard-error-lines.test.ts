// A run's error points at the program line that caused it: a plain throw at its own line, and a
// failed tool call that the program does not catch at the line of the call (with its call id),
// however the rejection reached the end of the program (await, Promise.all, a callback).

import { afterAll, describe, expect, it } from "vitest";
import { ToolError } from "../src/errors.js";
import { defineTool } from "../src/registry/define-tool.js";
import { Switchyard } from "../src/switchyard.js";

const getTicket = defineTool({
  name: "helpdesk.getTicket",
  description: "Gets a ticket by id.",
  inputSchema: {
    type: "object",
    properties: { id: { type: "string" } },
    required: ["id"],
    additionalProperties: false,
  },
  effect: "read",
  execute: (input: { id: string }) => {
    if (!input.id.startsWith("T-1")) return { id: input.id, status: "open" };
    throw new ToolError(`No ticket ${input.id}.`, { code: "NOT_FOUND" });
  },
});

const yard = new Switchyard({ tools: [getTicket], observedTypes: false });
afterAll(() => yard.close());

describe("the line of a run's error", () => {
  it("names the line of the failed call among three calls of the same tool, with its call id", async () => {
    const result = await yard.run(`const a = await tools.helpdesk.getTicket({ id: "T-7" });
const b = await tools.helpdesk.getTicket({ id: "T-8" });
const c = await tools.helpdesk.getTicket({ id: "T-1" });
return [a.status, b.status, c.status];`);
    expect(result.error?.code).toBe("RUNTIME_ERROR");
    expect(result.error?.line).toBe(3);
    const failed = result.calls.find((call) => call.status !== "ok");
    expect(failed?.id).toBeDefined();
    expect(result.error?.message).toBe(
      `ToolCallError: No ticket T-1. (NOT_FOUND from tools.helpdesk.getTicket, call ${failed?.id})\n` +
        `  at line 3: const c = await tools.helpdesk.getTicket({ id: "T-1" });`,
    );
  });

  it("names the line of the call inside a callback when Promise.all rejects with it", async () => {
    const result = await yard.run(`const ids = ["T-5", "T-6", "T-10"];
const tickets = await Promise.all(
  ids.map((id) =>
    tools.helpdesk.getTicket({ id }),
  ),
);
return tickets.length;`);
    expect(result.error).toMatchObject({ code: "RUNTIME_ERROR", line: 4 });
    expect(result.error?.message).toContain("(NOT_FOUND from tools.helpdesk.getTicket, call ");
    expect(result.error?.message).toContain("\n  at line 4: tools.helpdesk.getTicket({ id }),");
  });

  it("names the line and call id of a call whose rejection nobody handled while the program slept", async () => {
    const result = await yard.run(`const pending = tools.helpdesk.getTicket({ id: "T-11" });
await sleep(5);
return (await pending).id;`);
    const failed = result.calls.find((call) => call.status !== "ok");
    expect(result.error).toMatchObject({ code: "RUNTIME_ERROR", line: 1 });
    expect(result.error?.message).toBe(
      `Unhandled rejection: ToolCallError: No ticket T-11. (NOT_FOUND from tools.helpdesk.getTicket, call ${failed?.id})\n` +
        `  at line 1: const pending = tools.helpdesk.getTicket({ id: "T-11" });`,
    );
  });

  it("names the line of a call that was never awaited and failed", async () => {
    const result = await yard.run(`const ok = await tools.helpdesk.getTicket({ id: "T-2" });
tools.helpdesk.getTicket({ id: "T-12" });
await sleep(5);
return ok.id;`);
    expect(result.error).toMatchObject({ code: "RUNTIME_ERROR", line: 2 });
    expect(result.error?.message).toContain("Unhandled rejection: ToolCallError: No ticket T-12. (NOT_FOUND");
  });

  it("names the line of a call left pending and awaited after another call", async () => {
    const result = await yard.run(`const pending = tools.helpdesk.getTicket({ id: "T-13" });
const other = await tools.helpdesk.getTicket({ id: "T-2" });
return [other.id, (await pending).id];`);
    expect(result.error).toMatchObject({ code: "RUNTIME_ERROR", line: 1 });
  });

  it("names the line of a call refused before it crossed (an argument that is not JSON)", async () => {
    const result = await yard.run(`const x = 1;
await tools.helpdesk.getTicket({ id: "T-3", when: 10n } as any);
return x;`);
    expect(result.error).toMatchObject({ code: "RUNTIME_ERROR", line: 2 });
    expect(result.error?.message).toContain("BigInt");
  });

  it("keeps the line of the throw when a program catches a call's error and throws its own", async () => {
    const result = await yard.run(`let ticket;
try {
  ticket = await tools.helpdesk.getTicket({ id: "T-1" });
} catch (error) {
  throw new Error("lookup failed: " + error.message);
}
return ticket;`);
    expect(result.error).toMatchObject({ code: "RUNTIME_ERROR", line: 5 });
    expect(result.error?.message).toBe(
      'Error: lookup failed: No ticket T-1.\n  at line 5: throw new Error("lookup failed: " + error.message);',
    );
  });

  it("still reports the call's error when the program replaced Error.prepareStackTrace with one that throws", async () => {
    const result = await yard.run(`(Error as any).prepareStackTrace = () => { throw new Error("hostile"); };
await tools.helpdesk.getTicket({ id: "T-1" });
return 1;`);
    expect(result.error?.code).toBe("RUNTIME_ERROR");
    expect(result.error?.message).toContain("No ticket T-1.");
  });

  it("cannot point the host at a line the program did not reach by forging a stack on its own error", async () => {
    const result = await yard.run(`const error = new Error("mine");
error.stack = "Error: mine\\n    at main (program.js:999999:1)";
throw error;`);
    expect(result.error?.code).toBe("RUNTIME_ERROR");
    expect(result.error?.line).toBeUndefined();
    expect(result.error?.message).toBe("Error: mine");
  });
});
