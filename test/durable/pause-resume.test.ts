// Programs that wait for a person: two `ask` calls nobody answers pause the run with both
// pending in the journal; a second process resumes it with one approval and one denial; the
// denial reaches the program's catch; every call has one live record over both processes; and a
// program changed before resuming ends REPLAY_DIVERGED with the journal unchanged.

import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import type { RunResult } from "../../src/contract.js";
import { decideRun } from "../../src/durable/decide-run.js";
import { FileRunJournal } from "../../src/durable/file-run-journal.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { Switchyard } from "../../src/switchyard.js";
import { REFUNDS, shopPermissions, shopTools } from "./fixtures/shop-tools.js";

const CHILD = fileURLToPath(new URL("./fixtures/resume-child.ts", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "durable-pause-"));
const folder = join(work, "runs");
const callsFile = join(work, "calls.log");
process.env["SHOP_CALLS"] = callsFile;
const yards: Switchyard[] = [];
afterAll(async () => {
  await Promise.all(yards.map((yard) => yard.close()));
  rmSync(work, { recursive: true, force: true });
});

function createYard(): Switchyard {
  const yard = new Switchyard({
    tools: shopTools,
    permissions: shopPermissions,
    typeCheck: "off",
    runJournal: new FileRunJournal({ folder }),
  });
  yards.push(yard);
  return yard;
}

function calls(): string[] {
  try {
    return readFileSync(callsFile, "utf8")
      .split("\n")
      .filter((line) => line !== "");
  } catch {
    return [];
  }
}

function resumeInAnotherProcess(runId: string, decisions: unknown): RunResult {
  const resultFile = join(work, `${runId}.result.json`);
  const child = spawnSync(
    process.execPath,
    [
      "--no-node-snapshot",
      "--import",
      import.meta.resolve("tsx"),
      CHILD,
      folder,
      runId,
      JSON.stringify(decisions),
      resultFile,
    ],
    { env: process.env, encoding: "utf8" },
  );
  expect(child.status, child.stderr).toBe(0);
  return JSON.parse(readFileSync(resultFile, "utf8")) as RunResult;
}

describe("a durable run that waits for a person", () => {
  it("pauses on two unanswered asks and resumes in another process with one approval and one denial", async () => {
    const paused = await createYard().run(REFUNDS, { durable: { id: "refunds", askTimeoutMs: 100 } });
    expect(paused.error?.code).toBe("PAUSED");
    const details = paused.error?.details as { pending: { position: number; tool: string; input: unknown }[] };
    expect(details.pending.map(({ position, tool, input }) => ({ position, tool, input }))).toEqual([
      { position: 3, tool: "shop.refund", input: { id: 1 } },
      { position: 4, tool: "shop.refund", input: { id: 2 } },
    ]);
    // The pending calls are not the paused run's: they are made when it resumes.
    expect(paused.calls.map((call) => call.id)).toEqual(["refunds.1", "refunds.2"]);
    const stored = (await new FileRunJournal({ folder }).list()).find((run) => run.id === "refunds");
    expect(stored?.state).toBe("paused");
    expect(stored?.pending.map((request) => request.position)).toEqual([3, 4]);

    const resumed = resumeInAnotherProcess("refunds", [
      { position: 3, approved: true },
      { position: 4, approved: false, reason: "order 2 was already refunded by hand" },
    ]);
    expect(resumed.ok, resumed.error?.message).toBe(true);
    const output = resumed.output as { totals: number; a: unknown; b: { caught: string; message: string } };
    expect(output.totals).toBe(30);
    expect(output.a).toEqual({ refunded: 1 });
    expect(output.b.caught).toBe("PERMISSION_DENIED");
    expect(output.b.message).toContain("order 2 was already refunded by hand");
    // One live record per call over both processes; the second replayed the first's two reads.
    const live = [...paused.calls, ...resumed.calls.filter((call) => call.replayed !== true)].map((call) => call.id);
    expect(live.sort()).toEqual(["refunds.1", "refunds.2", "refunds.3", "refunds.4"]);
    expect(resumed.calls.filter((call) => call.replayed === true).map((call) => call.id)).toEqual([
      "refunds.1",
      "refunds.2",
    ]);
    expect(calls()).toEqual(["order refunds:1", "order refunds:2", "refund refunds:3"]);
    expect((await new FileRunJournal({ folder }).list()).find((run) => run.id === "refunds")?.state).toBe("ended");
  }, 60_000);

  it("ends a resume of a changed program with REPLAY_DIVERGED, naming both sides, and leaves the journal unchanged", async () => {
    const paused = await createYard().run(REFUNDS, { durable: { id: "changed", askTimeoutMs: 50 } });
    expect(paused.error?.code).toBe("PAUSED");
    const path = join(folder, "changed.jsonl");
    const before = readFileSync(path, "utf8");
    const callsBefore = calls().length;
    const changed = REFUNDS.replace("tools.shop.order({ id: 2 })", "tools.shop.order({ id: 7 })");
    const result = await createYard().run(changed, {
      durable: {
        id: "changed",
        decisions: [
          { position: 3, approved: true },
          { position: 4, approved: true },
        ],
      },
    });
    expect(result.error?.code).toBe("REPLAY_DIVERGED");
    expect(result.error?.message).toMatch(/at call 2: the program made tools\.shop\.order with input sha256:/);
    expect(result.error?.details).toMatchObject({ position: 2 });
    expect(readFileSync(path, "utf8")).toBe(before);
    expect(calls()).toHaveLength(callsBefore);
  });

  it("refuses decisions of the wrong shape before touching the journal, which stays readable", async () => {
    const paused = await createYard().run(REFUNDS, { durable: { id: "misdecided", askTimeoutMs: 50 } });
    expect(paused.error?.code).toBe("PAUSED");
    const path = join(folder, "misdecided.jsonl");
    const before = readFileSync(path, "utf8");
    const wrong = [
      [{ position: "3", approved: true }],
      [{ position: 3, approved: "yes" }],
      [{ position: 0.5, approved: true }],
    ];
    for (const decisions of wrong) {
      await expect(
        createYard().resume("misdecided", { decisions: decisions as never, askTimeoutMs: 50 }),
      ).rejects.toMatchObject({ code: "OPTION_INVALID" });
    }
    expect(readFileSync(path, "utf8")).toBe(before);
    expect((await new FileRunJournal({ folder }).read("misdecided"))?.entries.at(-1)?.t).toBe("pause");
  });

  it("refuses a decision for a call the run does not wait for, so no approval lies in wait for a later call", async () => {
    const paused = await createYard().run(REFUNDS, { durable: { id: "stray", askTimeoutMs: 50 } });
    expect(paused.error?.code).toBe("PAUSED");
    const path = join(folder, "stray.jsonl");
    const before = readFileSync(path, "utf8");
    for (const position of [1, 5, 99]) {
      await expect(
        createYard().resume("stray", { decisions: [{ position, approved: true }], askTimeoutMs: 50 }),
      ).rejects.toMatchObject({
        code: "OPTION_INVALID",
        message: new RegExp(`call ${position} .* waits for call\\(s\\) 3, 4`),
      });
    }
    expect(readFileSync(path, "utf8")).toBe(before);
    // The refusal released the run: a resume with decisions on its pending calls goes ahead.
    const resumed = await createYard().resume("stray", {
      decisions: [
        { position: 3, approved: false },
        { position: 4, approved: false },
      ],
    });
    expect(resumed.ok, resumed.error?.message).toBe(true);
  });

  // Before, yard.resume took both of two decisions on one call (the last won) and let a caller's
  // approval override a person's `runs deny`; resume_run refused both, the library did not.
  it("refuses a call decided twice, or decided over a person's decision, leaving the journal as it was", async () => {
    const paused = await createYard().run(REFUNDS, { durable: { id: "overruled", askTimeoutMs: 50 } });
    expect(paused.error?.code).toBe("PAUSED");
    const store = new FileRunJournal({ folder });
    expect(await decideRun(store, "overruled", { position: 3, approved: false, reason: "fraud" })).toBeUndefined();
    const path = join(folder, "overruled.jsonl");
    const before = readFileSync(path, "utf8");
    const twice = [
      { position: 4, approved: true },
      { position: 4, approved: false },
    ];
    await expect(createYard().resume("overruled", { decisions: twice })).rejects.toMatchObject({
      code: "OPTION_INVALID",
      message: "Call 4 of run overruled is decided twice. Nothing was resumed.",
    });
    await expect(
      createYard().resume("overruled", { decisions: [{ position: 3, approved: true }] }),
    ).rejects.toMatchObject({
      code: "OPTION_INVALID",
      message: "A person already decided call 3 of run overruled; leave it out of the decisions. Nothing was resumed.",
    });
    expect(readFileSync(path, "utf8")).toBe(before);
    const resumed = await createYard().resume("overruled", { decisions: [{ position: 4, approved: false }] });
    expect(resumed.ok, resumed.error?.message).toBe(true);
    expect(resumed.output).toMatchObject({ a: { caught: "PERMISSION_DENIED" }, b: { caught: "PERMISSION_DENIED" } });
  });

  // Before, the pause ended the run 5 ms after the ask timed out, cancelling a call beside it that
  // needed no decision: its work was done but its answer not journaled, so the resume made it again.
  it("waits for a call in flight that needs no decision before pausing, so the resume does not make it again", async () => {
    const executed: string[] = [];
    const tool = (name: string, delayMs: number) =>
      defineTool({
        name,
        description: `The ${name} tool.`,
        effect: "write",
        inputSchema: { type: "object", properties: { id: { type: "integer" } }, required: ["id"] },
        execute: async (input: { id: number }, context) => {
          await new Promise((resolve) => setTimeout(resolve, delayMs));
          executed.push(`${name} ${String(context.idempotencyKey)}`);
          return { done: input.id };
        },
      });
    const yard = new Switchyard({
      tools: [tool("pay.charge", 300), tool("pay.refund", 0)],
      permissions: { rules: [{ tools: "pay.refund", decision: "ask", reason: "a person decides refunds" }] },
      typeCheck: "off",
      runJournal: new FileRunJournal({ folder }),
    });
    yards.push(yard);
    const program = "return await Promise.all([tools.pay.charge({ id: 1 }), tools.pay.refund({ id: 2 })]);";
    const paused = await yard.run(program, { durable: { id: "beside-a-charge", askTimeoutMs: 20 } });
    expect(paused.error?.code).toBe("PAUSED");
    expect(paused.error?.details).toMatchObject({ pending: [{ position: 2, tool: "pay.refund" }] });
    expect(paused.calls.map((call) => [call.tool, call.status])).toEqual([["pay.charge", "ok"]]);
    const resumed = await yard.resume("beside-a-charge", { decisions: [{ position: 2, approved: true }] });
    expect(resumed.output).toEqual([{ done: 1 }, { done: 2 }]);
    expect(resumed.calls.map((call) => [call.tool, call.replayed === true])).toEqual([
      ["pay.charge", true],
      ["pay.refund", false],
    ]);
    expect(executed).toEqual(["pay.charge beside-a-charge:1", "pay.refund beside-a-charge:2"]);
  });

  // Before, a call beside the ask that had not answered by the run's deadline held the pause until
  // the run ended TIMEOUT: the person's decision had no run left to reach.
  it("pauses before the run's deadline with a call beside the ask still in flight, made again on resume with its key", async () => {
    const executed: string[] = [];
    let charges = 0;
    const yard = new Switchyard({
      tools: [
        defineTool({
          name: "pay.charge",
          description: "Charges, slowly the first time.",
          effect: "write",
          inputSchema: { type: "object", properties: { id: { type: "integer" } }, required: ["id"] },
          execute: async (input: { id: number }, context) => {
            executed.push(`pay.charge ${String(context.idempotencyKey)}`);
            // The first charge outlasts the run; it answers only when the run cancels it.
            if (++charges === 1) await new Promise((resolve) => context.signal.addEventListener("abort", resolve));
            return { done: input.id };
          },
        }),
        defineTool({
          name: "pay.refund",
          description: "Refunds.",
          effect: "write",
          inputSchema: { type: "object", properties: { id: { type: "integer" } }, required: ["id"] },
          execute: (input: { id: number }, context) => {
            executed.push(`pay.refund ${String(context.idempotencyKey)}`);
            return { done: input.id };
          },
        }),
      ],
      permissions: { rules: [{ tools: "pay.refund", decision: "ask", reason: "a person decides refunds" }] },
      typeCheck: "off",
      runJournal: new FileRunJournal({ folder }),
    });
    yards.push(yard);
    const program = "return await Promise.all([tools.pay.charge({ id: 1 }), tools.pay.refund({ id: 2 })]);";
    const started = Date.now();
    const paused = await yard.run(program, {
      durable: { id: "charge-outlasts-the-run", askTimeoutMs: 20 },
      limits: { wallTimeMs: 1_500 },
    });
    expect(paused.error?.code, paused.error?.message).toBe("PAUSED");
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(paused.error?.details).toMatchObject({
      pending: [{ position: 2, tool: "pay.refund" }],
      inFlight: [{ position: 1, tool: "pay.charge", idempotencyKey: "charge-outlasts-the-run:1" }],
    });
    expect(paused.error?.message).toContain("Call(s) 1 had not answered by the run's deadline");
    // Both calls are made by the resume: their one record each is the resumed run's.
    expect(paused.calls).toEqual([]);
    const resumed = await yard.resume("charge-outlasts-the-run", { decisions: [{ position: 2, approved: true }] });
    expect(resumed.error).toBeUndefined();
    expect(resumed.output).toEqual([{ done: 1 }, { done: 2 }]);
    expect(resumed.calls.map((call) => [call.tool, call.status, call.replayed === true])).toEqual([
      ["pay.charge", "ok", false],
      ["pay.refund", "ok", false],
    ]);
    expect(executed).toEqual([
      "pay.charge charge-outlasts-the-run:1",
      "pay.charge charge-outlasts-the-run:1",
      "pay.refund charge-outlasts-the-run:2",
    ]);
  });

  it("pauses before the run's deadline when the ask's own timeout would come after it", async () => {
    const yard = createYard();
    const started = Date.now();
    const result = await yard.run(REFUNDS, {
      durable: { id: "ask-outlasts-the-run", askTimeoutMs: 60_000 },
      approve: () => new Promise(() => undefined),
      limits: { wallTimeMs: 800 },
    });
    expect(result.error?.code, result.error?.message).toBe("PAUSED");
    expect(Date.now() - started).toBeLessThan(800);
  });

  it("refuses an askTimeoutMs that is not a number of ms a timer can wait, before touching the journal", async () => {
    const yard = createYard();
    for (const askTimeoutMs of [-1, Number.NaN, 2_147_483_648, "30s"]) {
      await expect(
        yard.run(REFUNDS, { durable: { id: "ask-timeout-shape", askTimeoutMs: askTimeoutMs as number } }),
      ).rejects.toThrow(/durable\.askTimeoutMs must be a number of ms/);
    }
    expect(existsSync(join(folder, "ask-timeout-shape.jsonl"))).toBe(false);
  });

  it("pauses at once when the approver answers later", async () => {
    const yard = createYard();
    const started = Date.now();
    const result = await yard.run(REFUNDS, { durable: { id: "later" }, approve: () => "later" });
    expect(result.error?.code).toBe("PAUSED");
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
