// A durable run keeps the type check it passed in its journal's header, and a resume in a new
// process takes the check's findings from there instead of starting the checker, when everything
// the check saw is the same. When anything differs (a tool's schema, the mode, an old journal
// without one, a hand-edited one), the resume checks as before; a program with a type error that
// was never checked fails its resume with TYPE_ERROR, and nothing runs.

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import type { JournalHeader } from "../../src/durable/run-journal.js";
import type { ChildOrder, ChildReport } from "./fixtures/check-child.js";

const CHILD = fileURLToPath(new URL("./fixtures/check-child.ts", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "journaled-check-"));
const folder = join(work, "runs");
const callsFile = join(work, "calls.log");
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Two reads in a loop (the lint warns: serial-await-in-loop), then a refund that asks a person: call 3 pauses. */
const SWEEP = `const totals: number[] = [];
for (const id of [1, 2]) {
  const order = await tools.shop.order({ id });
  totals.push(order.total);
}
const refund = await tools.shop.refund({ id: 1 });
return { totals, refund };`;
/** SWEEP with a type error on its first line. */
const MISTYPED = `const label: string = 42;\n${SWEEP}`;

function inChild(order: Omit<ChildOrder, "folder" | "resultFile">): ChildReport {
  const resultFile = join(work, `${order.runId}.${order.action}.json`);
  const child = spawnSync(
    process.execPath,
    [
      "--no-node-snapshot",
      "--import",
      import.meta.resolve("tsx"),
      CHILD,
      JSON.stringify({ ...order, folder, resultFile }),
    ],
    { stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, SHOP_CALLS: callsFile } },
  );
  expect(child.status).toBe(0);
  return JSON.parse(readFileSync(resultFile, "utf8")) as ChildReport;
}

const journalFile = (id: string): string => join(folder, `${id}.jsonl`);

function headerOf(id: string): JournalHeader & Record<string, unknown> {
  return JSON.parse(readFileSync(journalFile(id), "utf8").split("\n")[0]!) as JournalHeader & Record<string, unknown>;
}

/** Copies run `from`'s journal to run `to`, its header passed through `edit`. */
function copyRun(from: string, to: string, edit: (header: Record<string, unknown>) => Record<string, unknown>): void {
  const [first, ...rest] = readFileSync(journalFile(from), "utf8").split("\n");
  const header = edit({ ...(JSON.parse(first!) as Record<string, unknown>), id: to });
  writeFileSync(journalFile(to), [JSON.stringify(header), ...rest].join("\n"));
}

function refundsMade(): number {
  try {
    return readFileSync(callsFile, "utf8")
      .split("\n")
      .filter((line) => line.startsWith("refund ")).length;
  } catch {
    return 0;
  }
}

// Every test starts two to five processes, some of them checkers: seconds each on a loaded machine.
describe("a durable run's journaled type check", { timeout: 180_000 }, () => {
  it("lets a resume in a new process with the default check skip the checker: same output, same warnings", () => {
    const first = inChild({ runId: "sweep", action: "run", source: SWEEP });
    expect(first.result.error?.code).toBe("PAUSED");
    expect(first.result.stats.typeCheckedBy).toBe("checker");
    expect(first.result.warnings.map((warning) => warning.code)).toContain("serial-await-in-loop");
    const { check } = headerOf("sweep");
    expect(check?.fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(check?.warnings).toEqual(first.result.warnings);
    // The same journal as the code before this change wrote it: no check in its header.
    copyRun("sweep", "sweep-old", ({ check: _check, ...header }) => header);

    const resumed = inChild({ runId: "sweep", action: "resume", approve: 3 });
    expect(resumed.result.ok, resumed.result.error?.message).toBe(true);
    expect(resumed.result.stats.typeCheckedBy).toBe("journal");
    expect(resumed.checkerStarts).toBe(0);
    expect(resumed.typeScriptLoaded).toBe(false);

    const checkedAgain = inChild({ runId: "sweep-old", action: "resume", approve: 3 });
    expect(checkedAgain.result.ok, checkedAgain.result.error?.message).toBe(true);
    expect(checkedAgain.result.stats.typeCheckedBy).toBe("checker");
    expect(checkedAgain.checkerStarts).toBe(1);
    expect(resumed.result.output).toEqual({ totals: [10, 20], refund: { refunded: 1 } });
    expect(resumed.result.output).toEqual(checkedAgain.result.output);
    expect(resumed.result.warnings).toEqual(checkedAgain.result.warnings);
    expect(resumed.result.warnings).toEqual(first.result.warnings);
  });

  it("gives a warn-mode resume the type errors and lint findings of its first check", () => {
    const first = inChild({ runId: "warned", action: "run", source: MISTYPED, typeCheck: "warn" });
    expect(first.result.error?.code).toBe("PAUSED");
    // Lint findings follow only when there are no type errors.
    expect(first.result.warnings.map((warning) => warning.code)).toEqual([2322]);
    copyRun("warned", "warned-now-error", (header) => header);

    const resumed = inChild({ runId: "warned", action: "resume", approve: 3, typeCheck: "warn" });
    expect(resumed.result.ok, resumed.result.error?.message).toBe(true);
    expect(resumed.result.stats.typeCheckedBy).toBe("journal");
    expect(resumed.checkerStarts).toBe(0);
    expect(resumed.result.warnings).toEqual(first.result.warnings);

    // Another mode is another check: `error` refuses what `warn` let run.
    const refunds = refundsMade();
    const strict = inChild({ runId: "warned-now-error", action: "resume", approve: 3 });
    expect(strict.result.error?.code).toBe("TYPE_ERROR");
    expect(strict.checkerStarts).toBe(1);
    expect(refundsMade()).toBe(refunds);
  });

  it("checks a resume again when a tool's input schema changed since the run was checked", () => {
    inChild({ runId: "schema", action: "run", source: SWEEP });
    const resumed = inChild({ runId: "schema", action: "resume", approve: 3, changedOrderSchema: true });
    expect(resumed.result.ok, resumed.result.error?.message).toBe(true);
    expect(resumed.result.stats.typeCheckedBy).toBe("checker");
    expect(resumed.checkerStarts).toBe(1);
  });

  it("fails the default-check resume of a run journaled with the check off whose program has a type error", () => {
    const first = inChild({ runId: "unchecked", action: "run", source: MISTYPED, typeCheck: "off" });
    expect(first.result.error?.code).toBe("PAUSED");
    expect(first.result.stats.typeCheckedBy).toBeUndefined();
    expect(headerOf("unchecked").check).toBeUndefined();
    const refunds = refundsMade();

    const resumed = inChild({ runId: "unchecked", action: "resume", approve: 3 });
    expect(resumed.result.ok).toBe(false);
    expect(resumed.result.error?.code).toBe("TYPE_ERROR");
    expect(resumed.result.error?.message).toContain("line 1, column 7");
    expect(resumed.result.error?.diagnostics?.map((diagnostic) => diagnostic.code)).toEqual([2322]);
    expect(resumed.checkerStarts).toBe(1);
    expect(refundsMade()).toBe(refunds);
  });

  it("checks again, without failing the run, when the journaled check was edited by hand", () => {
    inChild({ runId: "edited", action: "run", source: SWEEP });
    const check = headerOf("edited").check!;
    const edits: Record<string, (header: Record<string, unknown>) => Record<string, unknown>> = {
      fingerprint: (header) => ({ ...header, check: { ...check, fingerprint: `${check.fingerprint.slice(0, -1)}0` } }),
      shape: (header) => ({ ...header, check: { fingerprint: 7, errors: "none", warnings: [{ line: "x" }] } }),
      // References that would choose no tools: the declarations chosen differ from those checked.
      references: (header) => ({
        ...header,
        check: {
          ...check,
          references: {
            wholeCatalog: false,
            namespaces: [],
            members: [],
            typeNameCandidates: [],
            unresolvedTypeNames: [],
          },
        },
      }),
      scalar: (header) => ({ ...header, check: "trust me" }),
    };
    for (const [name, edit] of Object.entries(edits)) {
      copyRun("edited", `edited-${name}`, edit);
      const resumed = inChild({ runId: `edited-${name}`, action: "resume", approve: 3 });
      expect(resumed.result.ok, `${name}: ${resumed.result.error?.message}`).toBe(true);
      expect(resumed.result.stats.typeCheckedBy, name).toBe("checker");
    }
  });
});
