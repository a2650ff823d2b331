// Durable runs through the gateway, with the real MCP SDK client over the SDK's in-memory
// transport: a run that waits for a person answers PAUSED with its id and pending calls;
// resume_run resumes it by elicitation or with decisions; and the hostile sides: ids the gateway
// did not mint (paths, other surfaces' runs), decisions for calls nobody waits for, model
// approvals, two resumes at once, elicitation answers of an unexpected shape.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { type CallToolResult, ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { decideRun } from "../../src/durable/decide-run.js";
import { FileRunJournal } from "../../src/durable/file-run-journal.js";
import { createGatewayServer, type GatewayServerOptions } from "../../src/gateway/gateway-server.js";
import type { PausedRun } from "../../src/model-tools/paused-run.js";
import { Switchyard } from "../../src/switchyard.js";
import { REFUNDS, shopPermissions, shopTools } from "../durable/fixtures/shop-tools.js";
import { tempFolder, waitFor } from "../helpers/mcp-servers.js";

const work = tempFolder("gateway-durable");
const folder = join(work.path, "runs");
const callsFile = join(work.path, "calls.log");
process.env["SHOP_CALLS"] = callsFile;
const store = new FileRunJournal({ folder });

type ElicitHandler = (
  message: string,
  signal: AbortSignal,
  requestId: string | number,
) => ElicitResult | Promise<ElicitResult>;
const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0)) await close();
});
afterAll(() => work.remove());

async function connect(
  gatewayOptions: GatewayServerOptions,
  elicit?: ElicitHandler,
): Promise<{ client: Client; yard: Switchyard }> {
  const yard = new Switchyard({ tools: shopTools, permissions: shopPermissions, typeCheck: "off" });
  const gateway = createGatewayServer(yard, gatewayOptions);
  const client = new Client(
    { name: "test", version: "1.0.0" },
    { capabilities: elicit === undefined ? {} : { elicitation: {} } },
  );
  if (elicit !== undefined)
    client.setRequestHandler(ElicitRequestSchema, (request, extra) =>
      elicit((request.params as { message: string }).message, extra.signal, extra.requestId),
    );
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await gateway.server.connect(serverTransport);
  await client.connect(clientTransport);
  open.push(async () => {
    await client.close();
    await gateway.close();
    await yard.close();
  });
  return { client, yard };
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function textOf(result: CallToolResult): string {
  return result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
}

function pausedOf(result: CallToolResult): PausedRun {
  const paused = (result.structuredContent as { paused?: PausedRun }).paused;
  expect(paused, textOf(result)).toBeDefined();
  return paused!;
}

function calls(): string[] {
  try {
    return readFileSync(callsFile, "utf8").split("\n").filter(Boolean);
  } catch {
    return [];
  }
}

function callsOf(runId: string): string[] {
  return calls().filter((line) => line.includes(`${runId}:`));
}

/** A run of REFUNDS paused on both refunds, through a gateway whose client cannot be asked. */
async function pausedRun(options: GatewayServerOptions = {}): Promise<{ client: Client; runId: string }> {
  const { client } = await connect({ askClient: true, durable: { store, ...(options.durable as object) }, ...options });
  const result = await call(client, "run_program", { code: REFUNDS });
  const paused = pausedOf(result);
  return { client, runId: paused.runId };
}

describe("gateway durable runs: a run that waits for a person", () => {
  it("answers PAUSED with the run id, why, the pending calls and resume_run's arguments", async () => {
    const { client } = await connect({ askClient: true, durable: { store } });
    const listed = (await client.listTools()).tools.map((tool) => tool.name);
    expect(listed).toEqual(["run_program", "search_tools", "describe_tools", "resume_run"]);
    const result = await call(client, "run_program", { code: REFUNDS });
    expect(result.isError).toBe(true);
    const paused = pausedOf(result);
    expect(paused.runId).toMatch(/^run-[0-9a-f]{32}$/);
    expect(paused.why).toContain("the client cannot be asked");
    expect(paused.pending).toEqual([
      { position: 3, tool: "shop.refund", input: '{"id":1}', reason: "refunds need a person" },
      { position: 4, tool: "shop.refund", input: '{"id":2}', reason: "refunds need a person" },
    ]);
    expect(paused.resume).toEqual({ tool: "resume_run", arguments: { runId: paused.runId } });
    expect(textOf(result)).toContain(`paused: run ${paused.runId} waits for a person's decision on 2 call(s)`);
    expect(textOf(result)).toContain(`resume: call resume_run with {"runId":"${paused.runId}"}`);
    // The reads ran; no refund did.
    expect(callsOf(paused.runId)).toEqual([`order ${paused.runId}:1`, `order ${paused.runId}:2`]);
  });

  it("with elicitation: withdraws forms nobody answered when the run pauses, then resume_run asks again and resumes with one approval and one denial", async () => {
    let phase: "silent" | "answering" = "silent";
    const withdrawn: { signal: AbortSignal; requestId: string | number }[] = [];
    const messages: string[] = [];
    const { client } = await connect(
      { askClient: true, durable: { store, askTimeoutMs: 150 } },
      (message, signal, requestId) => {
        messages.push(message);
        if (phase === "silent") {
          withdrawn.push({ signal, requestId });
          return new Promise<ElicitResult>(() => {});
        }
        return message.includes('"id": 1')
          ? { action: "accept", content: { approve: true } }
          : { action: "accept", content: { approve: false, reason: "order 2 was refunded by hand" } };
      },
    );
    const first = await call(client, "run_program", { code: REFUNDS });
    const { runId, pending } = pausedOf(first);
    expect(pending.map((request) => request.position)).toEqual([3, 4]);
    // Both forms were sent while the run waited, and withdrawn once it paused. The SDK's client
    // ignores the cancellation of a request whose id is 0 (`if (!requestId) return`): the
    // server's first request cannot be withdrawn from this client.
    expect(withdrawn).toHaveLength(2);
    const withdrawable = withdrawn.filter((form) => form.requestId !== 0);
    expect(withdrawable.length).toBeGreaterThan(0);
    await waitFor(() => withdrawable.every((form) => form.signal.aborted), 2_000, "the forms to be withdrawn");

    phase = "answering";
    const resumed = await call(client, "resume_run", { runId });
    expect(resumed.isError, textOf(resumed)).toBe(false);
    const output = (resumed.structuredContent as { output: { a: unknown; b: { caught: string; message: string } } })
      .output;
    expect(output.a).toEqual({ refunded: 1 });
    expect(output.b.caught).toBe("PERMISSION_DENIED");
    expect(output.b.message).toContain("order 2 was refunded by hand");
    expect(messages.slice(2)).toEqual([
      expect.stringMatching(new RegExp(`^Paused run ${runId} waits for your decision on call 3: shop.refund`)),
      expect.stringMatching(/decision on call 4: shop\.refund/),
    ]);
    // Each call once over both requests: the reads were replayed, the approved refund ran once.
    expect(callsOf(runId)).toEqual([`order ${runId}:1`, `order ${runId}:2`, `refund ${runId}:3`]);
    expect((await store.list()).find((run) => run.id === runId)?.state).toBe("ended");
  });

  it("without elicitation: resume_run takes a denial, refuses an approval, and resumes with a person's journaled approval", async () => {
    const { client, runId } = await pausedRun();
    const before = readFileSync(join(folder, `${runId}.jsonl`), "utf8");
    const approving = await call(client, "resume_run", { runId, decisions: [{ position: 3, approved: true }] });
    expect(approving.isError).toBe(true);
    expect(textOf(approving)).toMatch(/^error PERMISSION_DENIED: resume_run cannot approve call 3: a person must/);
    expect(readFileSync(join(folder, `${runId}.jsonl`), "utf8")).toBe(before);

    // A denial is taken; the other call still waits, so the run pauses again on it alone.
    const denied = await call(client, "resume_run", {
      runId,
      decisions: [{ position: 4, approved: false, reason: "not this one" }],
    });
    expect(pausedOf(denied).pending.map((request) => request.position)).toEqual([3]);
    // A person approves on the command line's route (`switchyard runs approve`), then the model resumes.
    await store.appendOutside(runId, [{ t: "decision", at: Date.now(), position: 3, approved: true }]);
    const resumed = await call(client, "resume_run", { runId });
    expect(resumed.isError, textOf(resumed)).toBe(false);
    expect(resumed.structuredContent).toMatchObject({
      ok: true,
      output: {
        a: { refunded: 1 },
        b: { caught: "PERMISSION_DENIED", message: expect.stringContaining("not this one") },
      },
    });
    expect(callsOf(runId)).toEqual([`order ${runId}:1`, `order ${runId}:2`, `refund ${runId}:3`]);
  });

  it("without elicitation: resume_run approves when the gateway takes model approvals", async () => {
    const { client, runId } = await pausedRun({ durable: { store, modelApprovals: true } });
    const resumed = await call(client, "resume_run", {
      runId,
      decisions: [
        { position: 3, approved: true },
        { position: 4, approved: false },
      ],
    });
    expect(resumed.isError, textOf(resumed)).toBe(false);
    expect(resumed.structuredContent).toMatchObject({ ok: true, output: { a: { refunded: 1 } } });
  });
});

describe("gateway durable runs: resume_run refuses what is not a paused run of this gateway", () => {
  it("answers RUN_NOT_FOUND for an unknown id and RUN_FINISHED for a run that has ended", async () => {
    const { client, runId } = await pausedRun({ durable: { store, modelApprovals: true } });
    const unknown = await call(client, "resume_run", { runId: `run-${"0".repeat(32)}` });
    expect(textOf(unknown)).toMatch(/^error RUN_NOT_FOUND: No paused run run-0{32} here/);
    const decisions = [
      { position: 3, approved: false },
      { position: 4, approved: false },
    ];
    expect((await call(client, "resume_run", { runId, decisions })).isError).toBe(false);
    const finished = await call(client, "resume_run", { runId });
    expect(finished.isError).toBe(true);
    expect(textOf(finished)).toMatch(/^error RUN_FINISHED: Run run-[0-9a-f]{32} has already ended \(ok\)/);
  });

  it("refuses hostile run ids by their form, before any store is touched", async () => {
    const { client } = await connect({ askClient: true, durable: { store } });
    const filesBefore = readdirSync(folder).sort();
    const hostile = [
      "../../etc/passwd",
      "run-../../../tmp/x",
      `run-${"a".repeat(32)}/../x`,
      "run-\u0000",
      "/etc/passwd",
      "x".repeat(5_000),
      "",
    ];
    for (const runId of hostile) {
      const result = await call(client, "resume_run", { runId });
      expect(result.isError, runId.slice(0, 40)).toBe(true);
      expect(textOf(result)).toMatch(/^error INPUT_INVALID: /);
    }
    for (const args of [{}, { runId: 42 }, { runId: "run-1", decisions: "all" }, { runId: "run-1", extra: true }]) {
      expect(textOf(await call(client, "resume_run", args))).toMatch(
        /^error INPUT_INVALID: Invalid input for resume_run/,
      );
    }
    expect(readdirSync(folder).sort()).toEqual(filesBefore);
  });

  it("never resumes a run another surface or another tenant started in the same store", async () => {
    // A run started by the library itself, and one by a gateway with another prefix.
    const yard = new Switchyard({ tools: shopTools, permissions: shopPermissions, typeCheck: "off" });
    const library = await yard.run(REFUNDS, { durable: { id: "refunds-library", store } });
    await yard.close();
    expect(library.error?.code).toBe("PAUSED");
    const { runId: otherTenant } = await pausedRun({ durable: { store, idPrefix: "tenant-b" } });
    expect(otherTenant).toMatch(/^tenant-b-[0-9a-f]{32}$/);
    const journals = ["refunds-library", otherTenant].map((id) => readFileSync(join(folder, `${id}.jsonl`), "utf8"));

    const { client } = await connect({
      askClient: true,
      durable: { store, idPrefix: "tenant-a", modelApprovals: true },
    });
    for (const runId of ["refunds-library", otherTenant]) {
      const result = await call(client, "resume_run", { runId, decisions: [{ position: 3, approved: true }] });
      expect(textOf(result)).toMatch(/^error RUN_NOT_FOUND: /);
    }
    expect(["refunds-library", otherTenant].map((id) => readFileSync(join(folder, `${id}.jsonl`), "utf8"))).toEqual(
      journals,
    );
    expect(calls().filter((line) => line.startsWith("refund"))).not.toContain("refund refunds-library:3");
  });

  it("refuses decisions for calls the run does not wait for, twice-made and against a person's, resuming nothing", async () => {
    const { client, runId } = await pausedRun({ durable: { store, modelApprovals: true } });
    await store.appendOutside(runId, [{ t: "decision", at: Date.now(), position: 4, approved: false }]);
    const path = join(folder, `${runId}.jsonl`);
    const before = readFileSync(path, "utf8");
    const refusals: [unknown[], RegExp][] = [
      // A decision for a later call would approve, ahead of time, an ask no person has seen.
      [[{ position: 9, approved: true }], /does not wait for a decision on call 9; it waits for call\(s\) 3, 4/],
      [[{ position: 1, approved: false }], /does not wait for a decision on call 1/],
      [
        [
          { position: 3, approved: true },
          { position: 3, approved: false },
        ],
        /Call 3 is decided twice/,
      ],
      [[{ position: 4, approved: true }], /A person already decided call 4/],
    ];
    for (const [decisions, message] of refusals) {
      const result = await call(client, "resume_run", { runId, decisions });
      expect(textOf(result)).toMatch(/^error INPUT_INVALID: /);
      expect(textOf(result)).toMatch(message);
    }
    expect(readFileSync(path, "utf8")).toBe(before);
    expect(callsOf(runId).filter((line) => line.startsWith("refund"))).toEqual([]);
  });
});

describe("gateway durable runs: concurrent and malformed answers", () => {
  it("answers RUN_BUSY to a second resume_run while the first is still asking the person", async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let asked = 0;
    const { client } = await connect({ askClient: true, durable: { store, askTimeoutMs: 50 } }, async () => {
      asked++;
      if (asked <= 2) return { action: "cancel" };
      await released;
      return { action: "accept", content: { approve: false } };
    });
    const { runId } = pausedOf(await call(client, "run_program", { code: REFUNDS }));
    const first = call(client, "resume_run", { runId });
    await waitFor(() => asked === 3, 2_000, "the first resume to ask");
    const second = await call(client, "resume_run", { runId });
    expect(textOf(second)).toMatch(/^error RUN_BUSY: Run run-[0-9a-f]{32} is being run or resumed right now/);
    expect(asked).toBe(3);
    release();
    const done = await first;
    expect(done.isError, textOf(done)).toBe(false);
    expect(callsOf(runId).filter((line) => line.startsWith("refund"))).toEqual([]);
  });

  it("reads the journal once, under the run's lock: nothing decided or resumed meanwhile can slip between its check and its run", async () => {
    let runId = "";
    const meanwhile: string[] = [];
    const { client } = await connect({ askClient: true, durable: { store, askTimeoutMs: 50 } }, async (message) => {
      if (!message.startsWith("Paused run")) return { action: "cancel" };
      if (message.includes("call 3")) {
        // While the person reads the form: a decision from the command line (another store object,
        // as another process has) and a resume by the host. Each would change what resume_run read.
        const other = new FileRunJournal({ folder });
        const decided = await decideRun(other, runId, { position: 4, approved: true });
        meanwhile.push(decided?.code ?? "journaled");
        const host = new Switchyard({ tools: shopTools, permissions: shopPermissions, typeCheck: "off" });
        meanwhile.push((await host.resume(runId, { store: other, approve: () => true })).error?.code ?? "resumed");
        await host.close();
      }
      return { action: "accept", content: { approve: false } };
    });
    runId = pausedOf(await call(client, "run_program", { code: REFUNDS })).runId;
    const resumed = await call(client, "resume_run", { runId });
    expect(resumed.isError, textOf(resumed)).toBe(false);
    expect(meanwhile).toEqual(["RUN_BUSY", "RUN_BUSY"]);
    // The run ended with the person's two denials alone: no approval slipped in, no refund was made.
    const decisions = (await store.read(runId))!.entries.filter((entry) => entry.t === "decision");
    expect(decisions.map((entry) => [entry.position, entry.approved])).toEqual([
      [3, false],
      [4, false],
    ]);
    expect(callsOf(runId).filter((line) => line.startsWith("refund"))).toEqual([]);
  });

  it("answers RUN_BUSY when another resume of the run, outside this gateway, holds its journal", async () => {
    const { client, runId } = await pausedRun();
    // The host resumes the run itself and its approver has not answered yet: the run holds the lock.
    let answer!: (approved: boolean) => void;
    const answered = new Promise<boolean>((resolve) => (answer = resolve));
    let asking = false;
    const host = new Switchyard({ tools: shopTools, permissions: shopPermissions, typeCheck: "off" });
    const hostResume = host.resume(runId, {
      store,
      askTimeoutMs: 30_000,
      approve: () => {
        asking = true;
        return answered;
      },
    });
    await waitFor(() => asking, 10_000, "the host's resume to ask");
    const busy = await call(client, "resume_run", { runId, decisions: [{ position: 4, approved: false }] });
    expect(textOf(busy)).toMatch(/^error RUN_BUSY: /);
    answer(false);
    expect((await hostResume).ok).toBe(true);
    await host.close();
    expect(callsOf(runId).filter((line) => line.startsWith("refund"))).toEqual([]);
  });

  it("refuses a model's denial reason over 1,000 characters and more than 100 decisions, resuming nothing", async () => {
    const { client, runId } = await pausedRun();
    const path = join(folder, `${runId}.jsonl`);
    const before = readFileSync(path, "utf8");
    const oversized = [
      [{ position: 4, approved: false, reason: "r".repeat(100_000) }],
      Array.from({ length: 101 }, () => ({ position: 4, approved: false })),
    ];
    for (const decisions of oversized) {
      const result = await call(client, "resume_run", { runId, decisions });
      expect(textOf(result)).toMatch(/^error INPUT_INVALID: Invalid input for resume_run/);
      expect(textOf(result).length).toBeLessThan(2_000);
    }
    expect(readFileSync(path, "utf8")).toBe(before);
  });

  it("keeps a person's denial reason to 1,000 characters in the journal", async () => {
    const { client } = await connect({ askClient: true, durable: { store } }, (message) =>
      message.startsWith("Paused run")
        ? { action: "accept", content: { approve: false, reason: "r".repeat(100_000) } }
        : { action: "cancel" },
    );
    const { runId } = pausedOf(await call(client, "run_program", { code: REFUNDS }));
    const resumed = await call(client, "resume_run", { runId });
    expect(resumed.isError, textOf(resumed)).toBe(false);
    const decisions = (await store.read(runId))!.entries.filter((entry) => entry.t === "decision");
    expect(decisions.map((entry) => (entry.t === "decision" ? entry.reason?.length : 0))).toEqual([1_000, 1_000]);
  });

  it("takes an elicitation answer of an unexpected shape as no decision: the call stays pending and nothing runs", async () => {
    const answers: ElicitResult[] = [
      { action: "cancel" },
      { action: "cancel" },
      { action: "accept", content: { approve: "yes" } },
      { action: "accept" },
      { action: "accept", content: { approve: ["true"], reason: "x" } },
      { action: "accept", content: { approve: 1 } },
    ];
    let asked = 0;
    const { client } = await connect({ askClient: true, durable: { store, askTimeoutMs: 50 } }, () => {
      const answer = answers[asked++];
      return answer ?? { action: "cancel" };
    });
    const { runId } = pausedOf(await call(client, "run_program", { code: REFUNDS }));
    for (let round = 0; round < 2; round++) {
      const again = await call(client, "resume_run", { runId });
      expect(pausedOf(again).pending.map((request) => request.position)).toEqual([3, 4]);
    }
    expect(asked).toBe(6);
    expect(callsOf(runId).filter((line) => line.startsWith("refund"))).toEqual([]);
    expect((await store.list()).find((run) => run.id === runId)?.state).toBe("paused");
  });
});
