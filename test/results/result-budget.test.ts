import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ToolOutcome } from "../../src/contract.js";
import { executeToolCall, type PipelineContext } from "../../src/execute-tool-call.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { createReadResultTool } from "../../src/model-tools/read-result-tool.js";
import { applyResultBudget, serializeResult } from "../../src/results/result-budget.js";
import { SpillStore, type SpillSlice } from "../../src/results/spill-store.js";
import { Switchyard } from "../../src/switchyard.js";
import { createTestContext, makeCall } from "../helpers/pipeline-fixtures.js";

interface SpilledPreview {
  spilled: true;
  bytes: number;
  handle: string;
  preview: string;
  note: string;
}

function valueOf<T>(outcome: ToolOutcome): T {
  if (outcome.status !== "ok") throw new Error(`expected ok, got ${outcome.error.code}: ${outcome.error.message}`);
  return outcome.value as T;
}

/** applyResultBudget answers synchronously unless it spills; tests await either. */
const budgetOf = (...args: Parameters<typeof applyResultBudget>) => Promise.resolve(applyResultBudget(...args));

/** Pages through a spilled result with `results.read` and concatenates the slices. */
async function readBack(
  context: PipelineContext,
  handle: string,
  length: number,
): Promise<{ text: string; pages: number }> {
  let offset = 0;
  let text = "";
  let pages = 0;
  for (;;) {
    const slice = valueOf<SpillSlice>(
      await executeToolCall(makeCall("results.read", { handle, offset, length }), context),
    );
    expect(slice.offset).toBe(offset);
    text += slice.text;
    pages++;
    if (slice.done) return { text, pages };
    offset += length;
    if (pages > 10_000) throw new Error("results.read never reported done");
  }
}

let folder: string;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), "switchyard-spill-"));
});

afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe("serializeResult", () => {
  it("serializes values once and undefined as null", () => {
    expect(serializeResult({ a: [1, "b"] })).toEqual({ ok: true, json: '{"a":[1,"b"]}' });
    expect(serializeResult(undefined)).toEqual({ ok: true, json: "null" });
  });

  it("fails with TOOL_ERROR for a BigInt, a cycle, a bare function and a symbol", () => {
    const cyclic: { self?: unknown } = {};
    cyclic.self = cyclic;
    for (const value of [10n, cyclic, () => 1, Symbol("s")]) {
      const result = serializeResult(value);
      expect(result.ok).toBe(false);
      expect(!result.ok && result.error.code).toBe("TOOL_ERROR");
    }
  });
});

describe("applyResultBudget", () => {
  it("gives a hosted program's result its own budget: whole above the direct limit, spilled above its own", async () => {
    const store = new SpillStore(folder);
    const json = JSON.stringify("x".repeat(20_000));
    const options = { spill: store, maxDirectResultBytes: 16_384, maxHostedResultBytes: 65_536 };
    expect(await budgetOf("x".repeat(20_000), json, "direct", options)).toMatchObject({ ok: true, spilled: true });
    expect(await budgetOf("x".repeat(20_000), json, "hosted-program", options)).toMatchObject({
      ok: true,
      spilled: false,
      json,
    });
    const big = JSON.stringify("y".repeat(70_000));
    const spilled = await budgetOf("y".repeat(70_000), big, "hosted-program", options);
    expect(spilled).toMatchObject({ ok: true, spilled: true });
  });

  it("hands a result at or under the limit over unchanged", async () => {
    const json = JSON.stringify("x".repeat(98));
    await expect(budgetOf("x".repeat(98), json, "program", { maxProgramResultBytes: 100 })).resolves.toEqual({
      ok: true,
      value: "x".repeat(98),
      json,
      spilled: false,
    });
  });

  it("refuses a program result over the limit even when a spill store exists, and writes nothing", async () => {
    const store = new SpillStore(folder);
    const json = JSON.stringify("x".repeat(200));
    const shaped = await budgetOf("x".repeat(200), json, "program", { maxProgramResultBytes: 100, spill: store });
    expect(shaped).toMatchObject({
      ok: false,
      error: { code: "RESULT_TOO_LARGE", details: { bytes: 202, limit: 100 } },
    });
    expect(await readdir(folder)).toEqual([]);
  });

  it("spills a direct result over the limit and returns a preview, the byte count and a handle", async () => {
    const store = new SpillStore(join(folder, "nested"));
    const value = { rows: Array.from({ length: 200 }, (_, index) => ({ index, name: `row ${index}` })) };
    const json = JSON.stringify(value);
    const shaped = await budgetOf(value, json, "direct", {
      maxDirectResultBytes: 1_000,
      previewBytes: 64,
      spill: store,
    });
    expect(shaped.ok && shaped.spilled).toBe(true);
    const preview = (shaped.ok ? shaped.value : undefined) as SpilledPreview;
    expect(preview).toMatchObject({
      spilled: true,
      bytes: Buffer.byteLength(json),
      handle: expect.stringMatching(/^result-/),
    });
    expect(preview.preview).toBe(json.slice(0, 64));
    expect(preview.note).toContain(preview.handle);
    expect(shaped.ok && shaped.json).toBe(JSON.stringify(preview));
    const files = await readdir(join(folder, "nested"));
    expect(files).toEqual([`${preview.handle}.json`]);
    expect(await readFile(join(folder, "nested", files[0]!), "utf8")).toBe(json);
  });
});

describe("SpillStore.read", () => {
  it("gives each character to the slice that holds its first byte, so one-byte slices never split it", async () => {
    const store = new SpillStore(folder);
    const { handle } = await store.spill("a🚚b");
    const slices = await Promise.all([0, 1, 2, 3, 4, 5].map((offset) => store.read(handle, offset, 1)));
    expect(slices.map((slice) => slice?.text)).toEqual(["a", "🚚", "", "", "", "b"]);
    expect(slices.map((slice) => slice?.done)).toEqual([false, false, false, false, false, true]);
  });

  it("clamps an offset past the end to an empty, finished slice", async () => {
    const store = new SpillStore(folder);
    const { handle } = await store.spill("abc");
    await expect(store.read(handle, 10, 5)).resolves.toEqual({
      handle,
      offset: 3,
      text: "",
      totalBytes: 3,
      done: true,
    });
  });
});

describe("spilled results read back through results.read", () => {
  function spillingContext(value: unknown) {
    const store = new SpillStore(folder);
    return createTestContext(
      [
        defineTool({
          name: "reports.export",
          description: "Export.",
          inputSchema: { type: "object" },
          execute: () => value,
        }),
        createReadResultTool(store),
      ],
      {
        results: { maxDirectResultBytes: 2_000, previewBytes: 100, spill: store },
      },
    ).context;
  }

  it("reads an ASCII result back whole by paging offset and length and concatenating", async () => {
    const value = { items: Array.from({ length: 500 }, (_, index) => ({ id: index, label: `item-${index}` })) };
    const context = spillingContext(value);
    const preview = valueOf<SpilledPreview>(await executeToolCall(makeCall("reports.export", {}), context));
    expect(preview.spilled).toBe(true);
    const { text, pages } = await readBack(context, preview.handle, 1_000);
    expect(pages).toBe(Math.ceil(preview.bytes / 1_000));
    expect(JSON.parse(text)).toEqual(value);
  });

  it("reads a result with multi-byte characters back exactly, even when slices split a character", async () => {
    const value = { notes: Array.from({ length: 300 }, (_, index) => `订单 ${index} 已退款 ✓ 🚚`) };
    const context = spillingContext(value);
    const preview = valueOf<SpilledPreview>(await executeToolCall(makeCall("reports.export", {}), context));
    // 7 does not divide the 3- and 4-byte characters' positions: many slices end mid-character.
    const { text } = await readBack(context, preview.handle, 7);
    expect(text).toBe(JSON.stringify(value));
    expect(text).not.toContain("\uFFFD");
  });

  it("keeps the preview free of a broken character when the preview cut falls inside one", async () => {
    const value = "订".repeat(2_000);
    const store = new SpillStore(folder);
    const shaped = await budgetOf(value, JSON.stringify(value), "direct", {
      maxDirectResultBytes: 100,
      previewBytes: 11,
      spill: store,
    });
    const preview = (shaped.ok ? shaped.value : undefined) as SpilledPreview;
    // '"' + three 3-byte characters is 10 bytes; the 11th byte starts a fourth character.
    expect(preview.preview).toBe('"订订订');
  });

  it("answers RESULT_NOT_FOUND for a handle the store never issued, including one shaped like a path", async () => {
    const context = spillingContext("small");
    for (const handle of ["result-00000000-0000-0000-0000-000000000000", "../../etc/passwd", "result-../../x"]) {
      await expect(executeToolCall(makeCall("results.read", { handle }), context)).resolves.toMatchObject({
        status: "error",
        error: { code: "RESULT_NOT_FOUND" },
      });
    }
  });

  it("spills a large direct result of Switchyard.callTool and reads it back whole", async () => {
    const store = new SpillStore(folder);
    const value = Array.from({ length: 2_000 }, (_, index) => `line ${index}`);
    const yard = new Switchyard({
      tools: [
        defineTool({ name: "logs.tail", description: "Tail.", inputSchema: { type: "object" }, execute: () => value }),
        createReadResultTool(store),
      ],
      results: { maxDirectResultBytes: 4_096, spill: store },
    });
    const preview = valueOf<SpilledPreview>(await yard.callTool("logs.tail", {}));
    let offset = 0;
    let text = "";
    for (;;) {
      // Full-size slices, over the session's 4 KB budget: the reader's own results never spill again.
      const slice = valueOf<SpillSlice>(
        await yard.callTool("results.read", { handle: preview.handle, offset, length: 16_384 }),
      );
      expect(slice).toHaveProperty("text");
      text += slice.text;
      if (slice.done) break;
      offset += 16_384;
    }
    expect(JSON.parse(text)).toEqual(value);
  });
});
