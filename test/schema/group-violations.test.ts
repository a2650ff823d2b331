import { describe, expect, it } from "vitest";
import { groupViolations } from "../../src/schema/group-violations.js";

describe("groupViolations", () => {
  it("groups 2,000 violations 100 levels deep into one group, in time linear in the paths' depth", () => {
    // A hostile output: every item of a large array fails at the bottom of a deep map. Keying
    // each path and position by the whole path took about 8 s here, holding the event loop.
    // Linear, not quadratic: four times the depth costs about four times the time, not sixteen;
    // both measured here, least of three, so a loaded machine slows both sides alike.
    const violationsAt = (depth: number) =>
      Array.from({ length: 2_000 }, (_, item) => ({
        path: `/${item}${Array.from({ length: depth }, (_, level) => `/k${level}`).join("")}`,
        expected: "number",
        received: '"x"',
      }));
    const leastMs = (violations: ReturnType<typeof violationsAt>) =>
      Math.min(
        ...[0, 1, 2].map(() => {
          const started = performance.now();
          groupViolations(violations);
          return performance.now() - started;
        }),
      );
    const violations = violationsAt(100);
    expect(groupViolations(violations)).toEqual([
      {
        pattern: `/*${Array.from({ length: 100 }, (_, level) => `/k${level}`).join("")}`,
        expected: "number",
        received: '"x"',
        firstPath: violations[0]!.path,
        count: 2_000,
      },
    ]);
    const shallowMs = leastMs(violationsAt(25));
    const deepMs = leastMs(violations);
    expect(deepMs / shallowMs).toBeLessThan(9);
  });

  it("collapses the keys of nested maps left to right, and keeps distinct places apart", () => {
    const violations = [
      ...["a", "b", "c"].flatMap((outer) =>
        ["x", "y", "z"].map((inner) => ({ path: `/m/${outer}/n/${inner}/v`, expected: "number", received: "null" })),
      ),
      { path: "/m/a/n/x/w", expected: "string", received: "null" },
      { path: "", expected: "object", received: "[]" },
    ];
    expect(groupViolations(violations).map(({ pattern, count }) => [pattern, count])).toEqual([
      ["/m/a/n/x/w", 1],
      ["", 1],
      ["/m/*/n/*/v", 9],
    ]);
  });
});
