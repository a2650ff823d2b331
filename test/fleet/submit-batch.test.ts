// submitBatch with `checkWith`, on a real Redis: a program that fails the check of a session built
// like the workers' is refused with PROGRAM_INVALID before anything reaches Redis (no job, no
// batch meta, the inputs not even read); one that passes is enqueued with the check's warnings.

import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JsonValue } from "../../src/contract.js";
import { SwitchyardError } from "../../src/errors.js";
import type { ConfiguredSwitchyard } from "../../src/config/create-switchyard-from-config.js";
import { createFleetSession } from "../../src/fleet/fleet-session.js";
import { programErrorOf, submitBatch } from "../../src/fleet/submit-batch.js";
import { getBatchStatus } from "../../src/fleet/watch-batch.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { useRedisForFile } from "../helpers/redis-server.js";

const redis = useRedisForFile();
let session: ConfiguredSwitchyard;
const calls: unknown[] = [];
beforeAll(async () => {
  session = await createFleetSession(
    { typeCheck: "error" },
    {
      tools: [
        defineTool({
          name: "api.double",
          description: "Doubles n.",
          effect: "read",
          inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
          outputSchema: { type: "number" },
          execute: (input: { n: number }) => {
            calls.push(input);
            return input.n * 2;
          },
        }),
      ],
    },
  );
});
afterAll(async () => {
  await session?.close();
});

let queueCount = 0;
function freshQueue(): string {
  return `check-${process.pid}-${++queueCount}`;
}

/** Every Redis key of `queue`: BullMQ's and the batch store's. */
async function keysOf(queue: string): Promise<string[]> {
  return [...(await redis.client.keys(`bull:${queue}:*`)), ...(await redis.client.keys(`switchyard:${queue}:*`))];
}

/** Inputs that count how many were read. */
function countedInputs(values: readonly JsonValue[]): { inputs: Iterable<JsonValue>; read: () => number } {
  let read = 0;
  return {
    inputs: (function* () {
      for (const value of values) {
        read += 1;
        yield value;
      }
    })(),
    read: () => read,
  };
}

const INPUT_SCHEMA = { type: "object", properties: { n: { type: "number" } }, required: ["n"] } as const;

describe("submitBatch with checkWith", () => {
  it("refuses a program with a type error with PROGRAM_INVALID naming its line, and writes nothing to Redis", async () => {
    const queue = freshQueue();
    const program = "const doubled = await tools.api.double({ n: input.n });\nreturn doubled.toUpperCase();";
    const { inputs, read } = countedInputs([{ n: 1 }, { n: 2 }]);
    const error = await submitBatch({
      redis: redis.url,
      queue,
      batchId: "typed",
      program,
      inputs,
      inputSchema: INPUT_SCHEMA,
      checkWith: session.yard,
    }).catch((caught: unknown) => caught);
    expect(SwitchyardError.isInstance(error) && error.code).toBe("PROGRAM_INVALID");
    expect((error as Error).message).toMatch(
      /^The batch's program fails its check with TYPE_ERROR at line 2, column \d+: Property 'toUpperCase' does not exist/,
    );
    expect((error as Error).message).toContain("nothing was enqueued");
    // The error a worker's run of it would end with, whole.
    const ran = await session.yard.run(program, { input: { n: 1 }, inputSchema: INPUT_SCHEMA });
    expect(programErrorOf(error)).toEqual(ran.error);
    expect(calls).toEqual([]);
    expect(read()).toBe(0);
    expect(await keysOf(queue)).toEqual([]);
    const status = await getBatchStatus({ redis: redis.url, queue, batchId: "typed" }).catch((caught) => caught);
    expect(SwitchyardError.isInstance(status) && status.code).toBe("BATCH_NOT_FOUND");
  });

  it("refuses a syntax error and a program that reads a field the inputSchema does not have, as the workers would", async () => {
    const queue = freshQueue();
    const refusals = await Promise.all(
      [
        { program: "const x = ;\nreturn x;", code: "SYNTAX_ERROR", line: 1 },
        { program: "return input.count + 1;", code: "TYPE_ERROR", line: 1 },
      ].map(async (refused) => {
        const error = await submitBatch({
          redis: redis.url,
          queue,
          program: refused.program,
          inputs: [{ n: 1 }],
          inputSchema: INPUT_SCHEMA,
          checkWith: session.yard,
        }).catch((caught: unknown) => caught);
        return { expected: refused, error: programErrorOf(error), message: (error as Error).message };
      }),
    );
    for (const { expected, error, message } of refusals) {
      expect(error).toMatchObject({ code: expected.code, line: expected.line });
      expect(message).toContain(`with ${expected.code} at line ${expected.line}`);
    }
    expect(await keysOf(queue)).toEqual([]);
  });

  it("enqueues a program that passes (tools.fleet.job() included), with the check's warnings, and checks nothing without checkWith", async () => {
    const queue = freshQueue();
    const program = `const job = await tools.fleet.job();
const out: number[] = [];
for (const n of [input.n, input.n + 1]) {
  out.push(await tools.api.double({ n }));
}
return { out, attempt: job.attempt };`;
    const submitted = await submitBatch({
      redis: redis.url,
      queue,
      program,
      inputs: [{ n: 1 }, { n: 2 }, { n: 3 }],
      inputSchema: INPUT_SCHEMA,
      checkWith: session.yard,
    });
    expect(submitted).toMatchObject({ total: 3, queued: 3 });
    expect(submitted.warnings).toEqual([
      expect.objectContaining({ code: "serial-await-in-loop", line: 4, severity: "warning" }),
    ]);
    const jobs = new Queue(queue, { connection: redis.client });
    try {
      expect(await jobs.getWaitingCount()).toBe(3);
    } finally {
      await jobs.close();
    }
    expect(calls).toEqual([]);
    const unchecked = await submitBatch({
      redis: redis.url,
      queue,
      program: "return input.count.toUpperCase();",
      inputs: [{ n: 1 }],
    });
    expect(unchecked).toMatchObject({ queued: 1, warnings: [] });
  });
});

describe("submitBatch's inputs", () => {
  // Found from outside (2026-12-03): a BigInt, undefined, a cycle or deep nesting threw raw
  // TypeErrors and RangeErrors, and a function was dropped without a word.
  it("refuses an input that is not JSON data with OPTION_INVALID naming it, writing nothing", async () => {
    const cycle: Record<string, unknown> = {};
    cycle["self"] = cycle;
    let deep: unknown = 1;
    for (let level = 0; level < 100_000; level++) deep = [deep];
    for (const [given, said] of [
      [{ n: 1n }, /Input 2 of the batch: .*BigInt at "n"/],
      [undefined, /Input 2 of the batch: .*no JSON form/],
      [cycle, /Input 2 of the batch: .*cycle/],
      [deep, /Input 2 of the batch: .*nested deeper than 1000 levels/],
      [{ f: () => 1 }, /Input 2 of the batch: .*function at "f"/],
      [{ n: Number.POSITIVE_INFINITY }, /Input 2 of the batch: .*Infinity at "n"/],
    ] as const) {
      const queue = freshQueue();
      const error = await submitBatch({
        redis: redis.url,
        queue,
        program: "return input;",
        inputs: [{ n: 1 }, given as JsonValue],
      }).catch((caught: unknown) => caught);
      expect(SwitchyardError.isInstance(error) && error.code).toBe("OPTION_INVALID");
      expect((error as Error).message).toMatch(said);
      expect(await keysOf(queue)).toEqual([]);
    }
  });
});
