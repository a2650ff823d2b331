// What Switchyard writes to disk, on a disk that fills up: a real tmpfs of 256 KB
// (helpers/small-disk.ts; root, as CI runs, elsewhere the tests say they were skipped). The attack
// is the ordinary one a long sweep meets in a container with a small volume: a write fails
// (ENOSPC) or is cut short half-way. Nothing may crash the host, tear a durable run's journal, or
// hand the program an answer the journal does not hold (a resume once there is room makes each
// missing call once), and no failed write may leave a part of a file behind to take more room.

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { FileRunJournal } from "../../src/durable/file-run-journal.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { SpillStore } from "../../src/results/spill-store.js";
import { ObservedOutputTypes } from "../../src/schema/observed-output-types.js";
import { Switchyard } from "../../src/switchyard.js";
import { useSmallDisk } from "../helpers/small-disk.js";

const disk = useSmallDisk(256);

const PAGES = 100;
/** Each answer takes about 2 KB of journal: a few dozen fit in what the filler leaves. */
const SWEEP = `let sum = 0;
for (let cursor = 0; cursor < ${PAGES}; cursor++) {
  const page = await tools.api.page({ cursor });
  console.log(page.item);
  sum += page.item;
}
return sum;`;
const EXPECTED = (PAGES * (PAGES - 1)) / 2;

/** A session whose counting API records every call's idempotency key. */
function createSweepYard(folder: string) {
  const keys: string[] = [];
  const yard = new Switchyard({
    tools: [
      defineTool({
        name: "api.page",
        description: "A page of the sweep.",
        effect: "read",
        inputSchema: { type: "object", properties: { cursor: { type: "integer" } }, required: ["cursor"] },
        execute: (input: { cursor: number }, context) => {
          keys.push(context.idempotencyKey ?? "none");
          return { item: input.cursor, padding: "x".repeat(2_000) };
        },
      }),
    ],
    typeCheck: "off",
    runJournal: new FileRunJournal({ folder }),
  });
  return { yard, keys };
}

/** A tool whose one answer (100 KB) is larger than what the tests leave free. */
function exportTool() {
  return defineTool({
    name: "api.export",
    description: "A large export.",
    effect: "read",
    inputSchema: { type: "object" },
    execute: () => ({ rows: "r".repeat(100_000) }),
  });
}

/** Closes the session and gives the disk back for the next test. */
async function cleanUp(yard: Switchyard, filler: string, folder?: string): Promise<void> {
  await yard.close();
  rmSync(filler, { force: true });
  if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
}

describe.skipIf(!disk.mounted)("durable runs on a disk that fills up (a 256 KB tmpfs)", () => {
  it("stop JOURNAL_WRITE_FAILED with whole lines kept and the unjournaled answer withheld, and resume once there is room", async () => {
    const folder = join(disk.folder, "sweep");
    mkdirSync(folder);
    const filler = disk.fill(100);
    const { yard, keys } = createSweepYard(folder);
    try {
      const stopped = await yard.run(SWEEP, { durable: { id: "sweep" }, limits: { maxToolCalls: 1_000 } });
      expect(stopped.ok).toBe(false);
      expect(stopped.error?.code).toBe("JOURNAL_WRITE_FAILED");
      expect(stopped.error?.message).toMatch(/^Run sweep stopped: the journal of run sweep could not be written \(/);
      expect(stopped.error?.message).toContain('yard.resume("sweep")');
      const made = keys.length;
      expect(made).toBeGreaterThan(5);
      expect(made).toBeLessThan(PAGES);
      // One record per call made; the program saw every answer but the last, which the journal refused.
      expect(stopped.calls).toHaveLength(made);
      expect(stopped.logs).toEqual(Array.from({ length: made - 1 }, (_, n) => `${n}`));
      // The journal is whole lines (a write cut short is cut from the file), one crossing per answer seen.
      const journal = readFileSync(join(folder, "sweep.jsonl"), "utf8");
      expect(journal.endsWith("\n")).toBe(true);
      const lines = journal.split("\n").slice(0, -1);
      for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
      expect(lines.filter((line) => line.includes('"t":"x"'))).toHaveLength(made - 1);
      expect(existsSync(join(folder, "sweep.lock"))).toBe(false);

      rmSync(filler);
      const resumed = await yard.run(SWEEP, { durable: { id: "sweep" }, limits: { maxToolCalls: 1_000 } });
      expect(resumed.ok).toBe(true);
      expect(resumed.output).toBe(EXPECTED);
      // Every page once, and the one whose answer was withheld once more, with the same key.
      expect(keys).toHaveLength(PAGES + 1);
      expect(keys[made]).toBe(keys[made - 1]);
      expect(keys[made]).toBe(`sweep:${made}`);
      expect(new Set(keys).size).toBe(PAGES);
    } finally {
      await cleanUp(yard, filler, folder);
    }
  });

  it("refuses a new durable run on a full disk JOURNAL_WRITE_FAILED, leaving no journal or lock behind", async () => {
    const folder = join(disk.folder, "new");
    mkdirSync(folder);
    const filler = disk.fill(0);
    const { yard, keys } = createSweepYard(folder);
    try {
      const refused = await yard.run(SWEEP, { durable: { id: "fresh" } });
      expect(refused.ok).toBe(false);
      expect(refused.error?.code).toBe("JOURNAL_WRITE_FAILED");
      expect(refused.error?.message).toContain("ENOSPC");
      expect(keys).toHaveLength(0);
      expect(readdirSync(folder)).toEqual([]);
      rmSync(filler);
      const started = await yard.run(SWEEP, { durable: { id: "fresh" }, limits: { maxToolCalls: 1_000 } });
      expect(started.error).toBeUndefined();
      expect(started.output).toBe(EXPECTED);
    } finally {
      await cleanUp(yard, filler, folder);
    }
  });

  it("stops a run whose large answer cannot be stored apart JOURNAL_WRITE_FAILED, leaving no part of it", async () => {
    const folder = join(disk.folder, "spill");
    mkdirSync(folder);
    const filler = disk.fill(40);
    const yard = new Switchyard({
      tools: [exportTool()],
      typeCheck: "off",
      runJournal: new FileRunJournal({ folder, maxInlineAnswerBytes: 1_024 }),
    });
    try {
      const stopped = await yard.run(
        "const got = await tools.api.export({}); console.log('seen'); return got.rows.length;",
        {
          durable: { id: "export" },
        },
      );
      expect(stopped.error?.code).toBe("JOURNAL_WRITE_FAILED");
      expect(stopped.error?.message).toMatch(
        /^Run export stopped: the journal of run export could not be written \((ENOSPC|a short write)/,
      );
      expect(stopped.logs).toEqual([]);
      expect(existsSync(join(folder, "export.answers"))).toBe(true);
      expect(readdirSync(join(folder, "export.answers"))).toEqual([]);
    } finally {
      await cleanUp(yard, filler, folder);
    }
  });

  it("answers a result too large to spill RESULT_TOO_LARGE, and leaves no part of the spill file", async () => {
    const spill = new SpillStore(join(disk.folder, "results"));
    const filler = disk.fill(40);
    const yard = new Switchyard({
      tools: [exportTool()],
      results: { spill },
    });
    try {
      const call = await yard.callTool("api.export", {});
      expect(call).toMatchObject({ status: "error", error: { code: "RESULT_TOO_LARGE" } });
      expect(call.status === "ok" ? "" : call.error.message).toMatch(/could not be spilled to disk/);
      expect(readdirSync(spill.folder)).toEqual([]);
    } finally {
      await cleanUp(yard, filler);
    }
  });

  it("keeps a failed save of observed types as lastSaveError, leaving no part of the temporary file", async () => {
    const folder = join(disk.folder, "types");
    mkdirSync(folder);
    const file = join(folder, "observed.json");
    const types = new ObservedOutputTypes({ file });
    const filler = disk.fill(4);
    try {
      for (let tool = 0; tool < 40; tool++)
        types.observe(`crm.tool_${tool}`, { [`field_${tool}`]: "x".repeat(200), rows: [{ id: 1, name: "n" }] });
      await types.save();
      expect((types.lastSaveError as NodeJS.ErrnoException | undefined)?.code).toBe("ENOSPC");
      expect(readdirSync(folder)).toEqual([]);
    } finally {
      rmSync(filler, { force: true });
    }
  });

  it("says one line, no stack trace, when `switchyard runs approve` cannot journal the decision, and takes it once there is room", async () => {
    const folder = join(disk.folder, "paused");
    const yard = new Switchyard({
      tools: [exportTool()],
      permissions: { rules: [{ tools: "api.export", decision: "ask" }] },
      typeCheck: "off",
      runJournal: new FileRunJournal({ folder }),
    });
    const paused = await yard.run("return (await tools.api.export({})).rows.length;", { durable: { id: "asks" } });
    expect(paused.error?.code).toBe("PAUSED");
    const journal = readFileSync(join(folder, "asks.jsonl"), "utf8");
    const filler = disk.fill(0);
    const bin = fileURLToPath(new URL("../../bin/switchyard.js", import.meta.url));
    const approve = () =>
      spawnSync(process.execPath, [bin, "runs", "approve", "asks", "1"], {
        env: { ...process.env, SWITCHYARD_RUNS_DIR: folder },
        encoding: "utf8",
      });
    try {
      const refused = approve();
      expect(refused.status).toBe(2);
      expect(refused.stderr).toMatch(
        /^switchyard: The journal of run asks could not be written \(ENOSPC[^\n]*\(JOURNAL_WRITE_FAILED\)\n$/,
      );
      expect(readFileSync(join(folder, "asks.jsonl"), "utf8")).toBe(journal);
      rmSync(filler);
      expect(approve().status).toBe(0);
      expect(readFileSync(join(folder, "asks.jsonl"), "utf8")).toMatch(/"t":"decision".*"approved":true/);
    } finally {
      await cleanUp(yard, filler, folder);
    }
  }, 60_000);
});
