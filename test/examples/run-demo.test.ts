import { describe, expect, it } from "vitest";
import { runOrdersDemo } from "../../examples/orders/run-demo.js";

describe("the orders demo, run in the real sandbox", () => {
  it("finds exactly the true duplicate charges and reports the lookups that kept failing", async () => {
    const { result, truth } = await runOrdersDemo();
    expect(result.ok, result.error?.message).toBe(true);
    const output = result.output as {
      checked: number;
      candidates: { orderId: string; refunded: boolean }[];
      failed: { orderId: string; code: string }[];
      complete: boolean;
    };
    expect(output.checked).toBe(truth.orderCount);
    expect(output.candidates.map((candidate) => candidate.orderId).sort()).toEqual(
      truth.duplicates.map((duplicate) => duplicate.orderId).sort(),
    );
    expect(output.candidates.filter((candidate) => candidate.refunded)).toHaveLength(
      truth.duplicates.filter((duplicate) => duplicate.refunded).length,
    );
    expect(output.failed.map((failure) => failure.orderId).sort()).toEqual([...truth.permanentFailures].sort());
    expect(output.complete).toBe(false);
    expect(result.warnings).toEqual([]);
    // The point of the exercise: far more data moved inside the sandbox than reached the model.
    expect(result.stats.bytesIn).toBeGreaterThan(50 * result.stats.bytesOut);
    expect(new Set(result.calls.map((call) => call.id)).size).toBe(result.calls.length);
  });
});
