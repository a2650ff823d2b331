// The guest runtime's code cache: made again after the warm-up program, once per process, and
// what later isolates start from. Real isolates and real runs; the module's state is this file's.

import { afterAll, describe, expect, it } from "vitest";
import { loadGuestRuntimeSource } from "../../src/sandbox/guest-runtime-source.js";
import { IsolatePool } from "../../src/sandbox/isolate-pool.js";
import { loadIsolatedVm } from "../../src/sandbox/load-isolated-vm.js";
import { compileRuntime, runtimeCodeCacheBytes, warmRuntimeCodeCache } from "../../src/sandbox/runtime-code-cache.js";
import { Switchyard } from "../../src/switchyard.js";
import { echoTool } from "../helpers/pipeline-fixtures.js";

const pool = new IsolatePool();
afterAll(() => pool.close());

describe("the guest runtime's code cache", () => {
  it("is made again after the warm-up, holding the functions a run calls that the first compile left out", async () => {
    const source = await loadGuestRuntimeSource();
    const first = await pool.take(32);
    const eager = runtimeCodeCacheBytes(source);
    first.dispose();
    expect(eager).toBeGreaterThan(0);
    await expect.poll(() => runtimeCodeCacheBytes(source), { timeout: 10_000 }).toBeGreaterThan(eager * 2);
  });

  it("starts later runs from the warm cache with their outputs, failures, logs and error lines as before", async () => {
    const source = await loadGuestRuntimeSource();
    await expect.poll(() => runtimeCodeCacheBytes(source), { timeout: 10_000 }).toBeGreaterThan(10_000);
    const yard = new Switchyard({
      typeCheck: "off",
      tools: [echoTool("t.echo")],
    });
    try {
      const ok = await yard.run(
        `const all = await Promise.all([1, 2, 3].map((n) => tools.t.echo({ n })));
         let code = "";
         try { await tools.t.missing({}); } catch (error) { code = error.code; }
         console.log("sum", all.reduce((sum, a) => sum + a.n, 0));
         await sleep(1);
         return { code, nested: await tools.t.echo({ deep: { list: [1, "two", null] } }) };`,
      );
      expect(ok.output).toEqual({ code: "TOOL_NOT_FOUND", nested: { deep: { list: [1, "two", null] } } });
      expect(ok.logs).toEqual(["sum 6"]);
      const failed = await yard.run("await tools.t.echo({});\nthrow new Error('third line');");
      expect(failed.error?.code).toBe("RUNTIME_ERROR");
      expect(failed.error?.line).toBe(2);
    } finally {
      await yard.close();
    }
  });

  it("keeps the cache it has when the warm-up cannot start, and never rejects", async () => {
    const other = `${await loadGuestRuntimeSource()}\n// another build`;
    const isolate = new (loadIsolatedVm().Isolate)({ memoryLimit: 32 });
    try {
      await compileRuntime(isolate, other);
    } finally {
      isolate.dispose();
    }
    const first = runtimeCodeCacheBytes(other);
    expect(first).toBeGreaterThan(0);
    await expect(warmRuntimeCodeCache(other, () => Promise.reject(new Error("no isolate")))).resolves.toBeUndefined();
    expect(runtimeCodeCacheBytes(other)).toBe(first);
  });
});
