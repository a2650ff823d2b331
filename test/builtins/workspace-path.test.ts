import { constants } from "node:fs";
import { mkdir, readFile, rename, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  openInWorkspace,
  resolveInWorkspace,
  resolveWorkspacePath,
  type WorkspaceRoot,
} from "../../src/builtins/workspace-path.js";
import { ToolError } from "../../src/errors.js";
import { createWorkspaceFixture, type WorkspaceFixture } from "../helpers/workspace-fixture.js";

let fixture: WorkspaceFixture;
let base: string;
let root: string;
let outside: string;
// The fixture's root is already a real path, so it is its own resolved form.
let workspaceRoot: WorkspaceRoot;

beforeAll(async () => {
  fixture = await createWorkspaceFixture("path");
  ({ base, root, outside } = fixture);
  workspaceRoot = { path: root, realPath: root };
  await mkdir(join(root, "docs"), { recursive: true });
  await writeFile(join(root, "docs", "readme.md"), "inside\n");
  await symlink(join(root, "docs", "readme.md"), join(root, "readme-link"));
  await symlink("docs", join(root, "docs-link"));
  await symlink(join(outside, "not-yet.txt"), join(root, "dangling-out"));
  await symlink("docs/new.md", join(root, "dangling-in"));
  await symlink("loop-b", join(root, "loop-a"));
  await symlink("loop-a", join(root, "loop-b"));
});

afterAll(async () => {
  await fixture.remove();
});

async function refusal(requested: string, mustExist = true): Promise<ToolError> {
  const error: unknown = await resolveInWorkspace(root, requested, { mustExist }).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ToolError);
  return error as ToolError;
}

describe("resolveInWorkspace", () => {
  it("returns the real path of a file inside the workspace", async () => {
    await expect(resolveInWorkspace(root, "docs/readme.md", { mustExist: true })).resolves.toBe(
      join(root, "docs", "readme.md"),
    );
    await expect(resolveInWorkspace(root, "./docs/../docs/readme.md", { mustExist: true })).resolves.toBe(
      join(root, "docs", "readme.md"),
    );
  });

  it("refuses a .. escape with PATH_OUTSIDE_WORKSPACE and a message about relative paths", async () => {
    for (const requested of ["../outside/secret.txt", "docs/../../outside/secret.txt", ".."]) {
      const error = await refusal(requested);
      expect(error.code).toBe("PATH_OUTSIDE_WORKSPACE");
      expect(error.message).toMatch(/relative to the workspace/);
    }
  });

  it("refuses an absolute path outside the workspace and never names the root in the message", async () => {
    for (const requested of [join(outside, "secret.txt"), "/etc/passwd"]) {
      const error = await refusal(requested);
      expect(error.code).toBe("PATH_OUTSIDE_WORKSPACE");
      expect(error.message).not.toContain(root);
    }
  });

  it("accepts an absolute path that lies inside the workspace", async () => {
    await expect(resolveInWorkspace(root, join(root, "docs", "readme.md"), { mustExist: true })).resolves.toBe(
      join(root, "docs", "readme.md"),
    );
  });

  it("refuses a path with a NUL byte", async () => {
    expect((await refusal("docs/readme.md\0.txt")).code).toBe("PATH_OUTSIDE_WORKSPACE");
  });

  it("refuses a symlink to a file outside the workspace", async () => {
    expect((await refusal("secret-link")).code).toBe("PATH_OUTSIDE_WORKSPACE");
  });

  it("refuses a path through a symlink to a folder outside the workspace", async () => {
    expect((await refusal("outside-folder/secret.txt")).code).toBe("PATH_OUTSIDE_WORKSPACE");
    expect((await refusal("outside-folder")).code).toBe("PATH_OUTSIDE_WORKSPACE");
  });

  it("follows a symlink inside the workspace that points inside", async () => {
    await expect(resolveInWorkspace(root, "readme-link", { mustExist: true })).resolves.toBe(
      join(root, "docs", "readme.md"),
    );
    await expect(resolveInWorkspace(root, "docs-link/readme.md", { mustExist: true })).resolves.toBe(
      join(root, "docs", "readme.md"),
    );
  });

  it("refuses a not-yet-existing file under a symlinked-out parent", async () => {
    expect((await refusal("outside-folder/new.txt", false)).code).toBe("PATH_OUTSIDE_WORKSPACE");
    expect((await refusal("outside-folder/deeper/new.txt", false)).code).toBe("PATH_OUTSIDE_WORKSPACE");
  });

  it("refuses a dangling symlink that points outside, even when the file need not exist", async () => {
    expect((await refusal("dangling-out", false)).code).toBe("PATH_OUTSIDE_WORKSPACE");
  });

  it("follows a dangling symlink that points inside to where a new file would be created", async () => {
    const target = await resolveWorkspacePath(workspaceRoot, "dangling-in", { mustExist: false });
    expect(target).toMatchObject({
      realPath: join(root, "docs", "new.md"),
      relativePath: "docs/new.md",
      exists: false,
    });
  });

  it("resolves a file that does not exist yet to its real parent plus the rest", async () => {
    const target = await resolveWorkspacePath(workspaceRoot, "docs-link/sub/new.txt", { mustExist: false });
    expect(target).toMatchObject({
      realPath: join(root, "docs", "sub", "new.txt"),
      relativePath: "docs/sub/new.txt",
      exists: false,
    });
  });

  it("reports NOT_FOUND for a missing path only when it must exist", async () => {
    expect((await refusal("docs/missing.md")).code).toBe("NOT_FOUND");
    await expect(resolveInWorkspace(root, "docs/missing.md", { mustExist: false })).resolves.toBe(
      join(root, "docs", "missing.md"),
    );
  });

  it("reports a symlink loop as SYMLINK_LOOP", async () => {
    expect((await refusal("loop-a", false)).code).toBe("SYMLINK_LOOP");
  });

  it("gives the root itself as '.'", async () => {
    const target = await resolveWorkspacePath(workspaceRoot, ".", { mustExist: true });
    expect(target).toMatchObject({ realPath: root, relativePath: ".", exists: true });
  });

  it("confines by the real path of a root that is itself a symlink", async () => {
    const linkedRoot = join(base, "root-link");
    await symlink(root, linkedRoot);
    await expect(resolveInWorkspace(linkedRoot, "docs/readme.md", { mustExist: true })).resolves.toBe(
      join(root, "docs", "readme.md"),
    );
    await expect(
      resolveInWorkspace(linkedRoot, join(linkedRoot, "docs", "readme.md"), { mustExist: true }),
    ).resolves.toBe(join(root, "docs", "readme.md"));
    expect(
      await resolveInWorkspace(linkedRoot, "secret-link", { mustExist: true }).catch((error: ToolError) => error.code),
    ).toBe("PATH_OUTSIDE_WORKSPACE");
  });
});

describe("resolveWorkspacePath with a root resolved once", () => {
  it("stays confined to the resolved root after the root folder is replaced by a symlink to the outside", async () => {
    const pinned = join(base, "pinned");
    await mkdir(pinned);
    const pinnedRoot: WorkspaceRoot = { path: pinned, realPath: pinned };
    await rename(pinned, join(base, "pinned-old"));
    await symlink(outside, pinned);
    for (const [requested, mustExist] of [
      ["secret.txt", true],
      ["new.txt", false],
    ] as const) {
      const error = await resolveWorkspacePath(pinnedRoot, requested, { mustExist }).catch(
        (thrown: ToolError) => thrown,
      );
      expect((error as ToolError).code, requested).toBe("PATH_OUTSIDE_WORKSPACE");
    }
  });

  it("reports WORKSPACE_UNAVAILABLE for a missing target once the root folder is gone", async () => {
    const gone = join(base, "gone");
    await mkdir(gone);
    const goneRoot: WorkspaceRoot = { path: gone, realPath: gone };
    await rm(gone, { recursive: true });
    const error = await resolveWorkspacePath(goneRoot, "new.txt", { mustExist: false }).catch(
      (thrown: ToolError) => thrown,
    );
    expect((error as ToolError).code).toBe("WORKSPACE_UNAVAILABLE");
  });
});

describe("openInWorkspace after a swap (time of check to time of use)", () => {
  it("refuses to open a file swapped for a symlink after the check (O_NOFOLLOW)", async () => {
    await mkdir(join(root, "race"), { recursive: true });
    await writeFile(join(root, "race", "file.txt"), "inside\n");
    const target = await resolveWorkspacePath(workspaceRoot, "race/file.txt", { mustExist: true });
    await rm(join(root, "race", "file.txt"));
    await symlink(join(outside, "secret.txt"), join(root, "race", "file.txt"));
    const error = await openInWorkspace(target, constants.O_RDONLY, "race/file.txt").then(
      () => undefined,
      (thrown: unknown) => thrown as ToolError,
    );
    expect(error?.code).toBe("SYMLINK_LOOP");
  });

  it("refuses a handle whose folder was swapped for a symlink to the outside, before anything is truncated", async () => {
    await mkdir(join(root, "swap"), { recursive: true });
    await writeFile(join(root, "swap", "secret.txt"), "inside\n");
    const target = await resolveWorkspacePath(workspaceRoot, "swap/secret.txt", { mustExist: true });
    await rm(join(root, "swap"), { recursive: true });
    await symlink(outside, join(root, "swap"));
    const error = await openInWorkspace(target, constants.O_WRONLY, "swap/secret.txt").then(
      () => undefined,
      (thrown: unknown) => thrown as ToolError,
    );
    expect(error?.code).toBe("PATH_OUTSIDE_WORKSPACE");
    expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe("secret\n");
  });
});
