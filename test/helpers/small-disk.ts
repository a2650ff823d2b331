// A real small disk for the tests of what a full one does: a tmpfs of `kb` KB mounted on a fresh
// folder (root, as CI runs; elsewhere `mounted` is false and the tests say they were skipped),
// unmounted after the file's tests. `fill` takes all but `freeKb` of it.

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

export interface SmallDisk {
  readonly folder: string;
  readonly mounted: boolean;
  /** Fills the disk but for `freeKb` KB (written until the disk refuses, then cut back); returns the filler's path. */
  fill(freeKb: number): string;
}

export function useSmallDisk(kb: number): SmallDisk {
  const folder = mkdtempSync(join(tmpdir(), "small-disk-"));
  const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${kb}k`, "tmpfs", folder]).status === 0;
  afterAll(() => {
    if (mounted) spawnSync("umount", [folder]);
    rmSync(folder, { recursive: true, force: true });
  });
  let fillers = 0;
  return {
    folder,
    mounted,
    fill: (freeKb) => {
      const filler = join(folder, `filler-${++fillers}`);
      try {
        writeFileSync(filler, Buffer.alloc(2 * kb * 1024));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
      }
      truncateSync(filler, Math.max(0, statSync(filler).size - freeKb * 1024));
      return filler;
    },
  };
}
