// The setting every workspace-confinement test starts from: a workspace folder next to an
// outside folder holding a secret, with two symlinks in the workspace that lead out. Paths
// are real (the temp folder is resolved), so tests can compare them with resolved results.

import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Real paths of a confinement fixture and its remover. */
export interface WorkspaceFixture {
  /** The temp folder holding both `workspace` and `outside`. */
  readonly base: string;
  /** `<base>/workspace`, the folder tools are confined to. */
  readonly root: string;
  /** `<base>/outside`, holding `secret.txt` ("secret\n"). */
  readonly outside: string;
  readonly remove: () => Promise<void>;
}

/**
 * Creates `<tmp>/switchyard-<prefix>-…/{workspace,outside}` with `outside/secret.txt`, and in
 * the workspace `secret-link` (to that file) and `outside-folder` (to the outside folder).
 */
export async function createWorkspaceFixture(prefix: string): Promise<WorkspaceFixture> {
  const base = await realpath(await mkdtemp(join(tmpdir(), `switchyard-${prefix}-`)));
  const root = join(base, "workspace");
  const outside = join(base, "outside");
  await mkdir(root, { recursive: true });
  await mkdir(outside, { recursive: true });
  await writeFile(join(outside, "secret.txt"), "secret\n");
  await symlink(join(outside, "secret.txt"), join(root, "secret-link"));
  await symlink(outside, join(root, "outside-folder"));
  return { base, root, outside, remove: () => rm(base, { recursive: true, force: true }) };
}
