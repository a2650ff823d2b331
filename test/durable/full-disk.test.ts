// The file store on a disk that fills up: a real tmpfs of 256 KB mounted for the test (root, as
// CI runs; elsewhere the tests say they were skipped). The attack is the ordinary one a long sweep
// meets in a container with a small volume: the journal's write fails (ENOSPC) or is cut short
// half-way through a line. Nothing may crash the host, tear the journal, or hand the program an
// answer the journal does not hold; a resume once there is room makes each missing call once.

import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FileRunJournal } from "../../src/durable/file-run-journal.js";
import { defineTool } from "../../src/registry/define-tool.js";
import { Switchyard } from "../../src/switchyard.js";

const disk = mkdtempSync(join(tmpdir(), "durable-full-disk-"));
const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", disk]).status === 0;
afterAll(() => {
  if (mounted) spawnSync("umount", [disk]);
  rmSync(disk, { recursive: true, force: true });
});

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

/** Fills the disk but for `freeKb` KB: written until the disk refuses, then cut back. */
function fillDisk(freeKb: number): string {
  const filler = join(disk, `filler-${Math.random().toString(36).slice(2)}`);
  try {
    writeFileSync(filler, Buffer.alloc(512 * 1024));
  } catch (error) {
    expect((error as NodeJS.ErrnoException).code).toBe("ENOSPC");
  }
  truncateSync(filler, Math.max(0, statSync(filler).size - freeKb * 1024));
  return filler;
}

describe.skipIf(!mounted)("durable runs on a disk that fills up (a 256 KB tmpfs)", () => {
  it("stop JOURNAL_WRITE_FAILED with whole lines kept and the unjournaled answer withheld, and resume once there is room", async () => {
    const folder = join(disk, "sweep");
    mkdirSync(folder);
    const filler = fillDisk(100);
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
      await yard.close();
      rmSync(filler, { force: true });
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("refuses a new durable run on a full disk JOURNAL_WRITE_FAILED, leaving no journal or lock behind", async () => {
    const folder = join(disk, "new");
    mkdirSync(folder);
    const filler = fillDisk(0);
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
      await yard.close();
      rmSync(filler, { force: true });
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
