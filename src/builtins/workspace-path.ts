// Confines file paths to a workspace folder by REAL path: every symlink on the way is
// resolved and the result must lie inside the real path of the root, so `..`, absolute
// paths, NUL bytes and symlinks (to files or folders, dangling or not) cannot lead outside.
// It refuses with ToolError PATH_OUTSIDE_WORKSPACE and never names the host's root path.
//
// Time-of-check to time-of-use, honestly: a path checked here can be changed before it is
// used (a component swapped for a symlink by another process that can write inside the
// workspace). What this module does about it:
// - callers use the returned real path, never the requested one, so only a swap that happens
//   after the check matters;
// - `openInWorkspace` opens with O_NOFOLLOW (a final component swapped for a symlink fails
//   with ELOOP) and O_NONBLOCK (a FIFO cannot hang the call), then re-checks what was opened:
//   on Linux the real path of /proc/self/fd/N must still be inside the root; elsewhere the
//   path is resolved again and must still name the same device and inode. File contents are
//   read and written only through such verified handles, and writers truncate only after
//   the check, so an escaped open is closed before a byte moves.
// Hard links: a file with more than one link may be the same file as one outside the
// workspace (`ln /outside/secret ws/x`), which no path check can see; `openInWorkspace`
// refuses regular files with a link count above one, on the open handle.
// Left open: a swapped folder between check and open can still make an O_CREAT open create
// an empty file outside (it is then refused, not written); `mkdir -p` and directory listings
// are check-then-use (a racing swap can create empty folders outside or reveal names and
// sizes, never contents). Closing that fully needs openat2(RESOLVE_BENEATH), which Node
// does not expose; run the tools as a user that cannot write outside the workspace.

import { constants, type Stats } from "node:fs";
import { lstat, open, readlink, realpath, stat, type FileHandle } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { ToolError } from "../errors.js";

/** Options of `resolveInWorkspace`. */
export interface ResolveInWorkspaceOptions {
  /** When true, a path that does not exist is refused with `NOT_FOUND`. */
  readonly mustExist: boolean;
}

/**
 * A workspace root resolved once, for callers that keep one root across many calls. Pinning
 * the real path is deliberate: if the folder is later replaced on disk (say by a symlink to
 * somewhere else), paths stay confined to the folder that was resolved, not to the new target.
 */
export interface WorkspaceRoot {
  /** The root as configured, made absolute; absolute paths under this spelling are accepted. */
  readonly path: string;
  /** The real path of the root when it was resolved. */
  readonly realPath: string;
}

/** A confined path, as the workspace tools use it. */
export interface WorkspacePath {
  /** Real path of the workspace root. */
  readonly realRoot: string;
  /** Real path of the target (for a missing file: its nearest existing parent's real path plus the rest). */
  readonly realPath: string;
  /** The target relative to the root, `/`-separated; `.` for the root. Safe to show to a model. */
  readonly relativePath: string;
  /** Whether the target existed when it was resolved. */
  readonly exists: boolean;
}

// Linux's own limit on symlinks followed in one lookup (MAXSYMLINKS).
const MAX_SYMLINK_HOPS = 40;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

/**
 * Resolves `requested` (relative to `root`, or absolute inside it) to its real path, with
 * every symlink followed, and guarantees the result lies inside the real path of `root`.
 * A file that does not exist yet resolves to the real path of its nearest existing parent
 * plus the remaining names (a dangling symlink on the way is followed by hand).
 * Refuses with ToolError `PATH_OUTSIDE_WORKSPACE` for a NUL byte, a `..` escape, an absolute
 * path outside, or any symlink leading outside; with `NOT_FOUND` when `mustExist` and the
 * target is missing (checked after confinement, so it reveals nothing about the outside);
 * with `SYMLINK_LOOP` past 40 links; with `WORKSPACE_UNAVAILABLE` when the root is gone.
 * The check is by path at one instant; see the module comment for what that cannot promise.
 */
export async function resolveInWorkspace(
  root: string,
  requested: string,
  options: ResolveInWorkspaceOptions,
): Promise<string> {
  const workspaceRoot: WorkspaceRoot = { path: resolve(root), realPath: await realRootOf(root) };
  return (await resolveWorkspacePath(workspaceRoot, requested, options)).realPath;
}

/**
 * `resolveInWorkspace` against a root resolved beforehand (its real path is not looked up
 * again), with the relative path and whether the target exists. `WORKSPACE_UNAVAILABLE` when
 * the target is missing because the root itself no longer exists.
 */
export async function resolveWorkspacePath(
  root: WorkspaceRoot,
  requested: string,
  options: ResolveInWorkspaceOptions,
): Promise<WorkspacePath> {
  if (requested.includes("\0")) throw outside(requested, "it contains a NUL byte");
  const realRoot = root.realPath;
  const lexical = lexicalTarget(root.path, realRoot, requested);
  if (lexical === undefined)
    throw outside(
      requested,
      isAbsolute(requested) ? "it is an absolute path outside the workspace" : "it leads out of the workspace with ..",
    );
  let resolved: { path: string; exists: boolean };
  try {
    resolved = await realPathOf(lexical, 0);
  } catch (error) {
    throw fileSystemError(error, requested);
  }
  if (!isInside(realRoot, resolved.path))
    throw outside(requested, "a symbolic link on the way points outside the workspace");
  // Only a missing target can hide a missing root; existing targets need no extra lookup.
  if (!resolved.exists) await realRootOf(realRoot);
  if (options.mustExist && !resolved.exists) {
    throw new ToolError(
      `No file or folder at "${display(requested)}" in the workspace (paths are relative to the workspace root).`,
      {
        code: "NOT_FOUND",
      },
    );
  }
  return {
    realRoot,
    realPath: resolved.path,
    relativePath: relativeToWorkspace(realRoot, resolved.path),
    exists: resolved.exists,
  };
}

/**
 * The lexical absolute form of `requested` under `root`, without touching the file system;
 * for lock keys, which must be computed synchronously. Two spellings of one file through a
 * symlink get different keys: the key orders calls, it does not confine them.
 */
export function lexicalWorkspacePath(root: string, requested: string): string {
  return resolve(root, requested);
}

/** Whether `candidate` is `realRoot` or lies under it (both absolute and normalized). */
export function isInside(realRoot: string, candidate: string): boolean {
  const path = relative(realRoot, candidate);
  return path === "" || (path !== ".." && !path.startsWith(`..${sep}`) && !isAbsolute(path));
}

/** `realPath` relative to `realRoot`, `/`-separated, `.` for the root itself. */
function relativeToWorkspace(realRoot: string, realPath: string): string {
  const path = relative(realRoot, realPath);
  return path === "" ? "." : path.split(sep).join("/");
}

/**
 * Opens a path `resolveWorkspacePath` returned with O_NOFOLLOW and O_NONBLOCK added to
 * `flags`, then verifies the open file is still inside the workspace (see the module
 * comment) and, for a regular file, that it has exactly one hard link; on failure the handle
 * is closed (before a byte is read or written) and ToolError `PATH_OUTSIDE_WORKSPACE` thrown.
 * File-system errors become ToolErrors named after `displayPath` (`NOT_FOUND`, `NOT_A_FILE`…).
 */
export async function openInWorkspace(
  target: WorkspacePath,
  flags: number,
  displayPath: string,
  mode = 0o666,
): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(target.realPath, flags | O_NOFOLLOW | O_NONBLOCK, mode);
  } catch (error) {
    throw fileSystemError(error, displayPath);
  }
  try {
    if (!(await openedInside(handle, target))) {
      throw outside(displayPath, "the path changed while it was being opened");
    }
    const stats = await handle.stat();
    if (stats.isFile() && stats.nlink > 1) {
      throw new ToolError(
        `"${display(displayPath)}" has ${stats.nlink} hard links; another link to the same file may lie outside the workspace, so it is neither read nor written.`,
        { code: "PATH_OUTSIDE_WORKSPACE", details: { hardLinks: stats.nlink } },
      );
    }
  } catch (error) {
    await handle.close().catch(() => {});
    throw ToolError.isInstance(error) ? error : fileSystemError(error, displayPath);
  }
  return handle;
}

/**
 * Maps a file-system error to a ToolError whose message names `displayPath` (the model's own
 * path) and never the host's absolute path. Unknown errors keep only their errno code.
 */
export function fileSystemError(error: unknown, displayPath: string): ToolError {
  if (ToolError.isInstance(error)) return error;
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  const shown = `"${display(displayPath)}"`;
  switch (code) {
    case "ENOENT":
      return new ToolError(
        `No file or folder at ${shown} in the workspace (paths are relative to the workspace root).`,
        { code: "NOT_FOUND" },
      );
    case "ENOTDIR":
      return new ToolError(`A part of ${shown} is a file, not a folder.`, { code: "NOT_A_DIRECTORY" });
    case "EISDIR":
      return new ToolError(`${shown} is a folder, not a file; use workspace.listDir for folders.`, {
        code: "NOT_A_FILE",
      });
    case "EEXIST":
      return new ToolError(`${shown} already exists; use mode "overwrite" or "append" to change it.`, {
        code: "ALREADY_EXISTS",
      });
    case "ELOOP":
      return new ToolError(
        `${shown} is or became a symbolic link loop, or was swapped for a link while being opened.`,
        {
          code: "SYMLINK_LOOP",
        },
      );
    case "ENXIO":
      return new ToolError(`${shown} is not a regular file (a pipe or device).`, { code: "NOT_A_FILE" });
    case "EACCES":
    case "EPERM":
      return new ToolError(`The host's file permissions do not allow this operation on ${shown}.`, {
        code: "FS_ACCESS_DENIED",
      });
    case "ENOSPC":
    case "EDQUOT":
      return new ToolError(`No space left to write ${shown}.`, { code: "NO_SPACE" });
    case "ENAMETOOLONG":
      return new ToolError(`${shown} is too long a path for the host's file system.`, { code: "PATH_INVALID" });
    default:
      return new ToolError(
        `The file operation on ${shown} failed (${typeof code === "string" ? code : "unknown error"}).`,
        {
          code: "FS_ERROR",
        },
      );
  }
}

/** The model's path, shortened for messages. */
export function display(path: string): string {
  const clean = path.replace(/\0/g, "\\0");
  return clean.length <= 200 ? clean : `${clean.slice(0, 197)}...`;
}

function outside(requested: string, why: string): ToolError {
  return new ToolError(
    `Path "${display(requested)}" is outside the workspace: ${why}. Paths are relative to the workspace root (e.g. "notes/todo.md"); ` +
      `.., absolute paths and symbolic links may not leave it.`,
    { code: "PATH_OUTSIDE_WORKSPACE" },
  );
}

async function realRootOf(root: string): Promise<string> {
  try {
    return await realpath(root);
  } catch {
    throw new ToolError("The workspace folder is not available on the host.", { code: "WORKSPACE_UNAVAILABLE" });
  }
}

/** The lexical absolute target re-based on the real root, or undefined when it leaves the root. */
function lexicalTarget(root: string, realRoot: string, requested: string): string | undefined {
  if (!isAbsolute(requested)) {
    const target = resolve(realRoot, requested);
    return isInside(realRoot, target) ? target : undefined;
  }
  // An absolute path is accepted only under the root as configured or as resolved.
  const target = resolve(requested);
  for (const base of [resolve(root), realRoot]) {
    if (isInside(base, target)) return resolve(realRoot, relative(base, target));
  }
  return undefined;
}

function isMissing(error: unknown): boolean {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === "ENOENT" || code === "ENOTDIR";
}

/**
 * The real path of `candidate` (absolute, normalized). For a missing target, the real path of
 * the nearest existing ancestor plus the missing names; a dangling symlink among them is
 * followed by hand, since a later create through it would land wherever it points.
 */
async function realPathOf(candidate: string, hops: number): Promise<{ path: string; exists: boolean }> {
  if (hops > MAX_SYMLINK_HOPS) {
    const error = new Error("too many symbolic links") as Error & { code: string };
    error.code = "ELOOP";
    throw error;
  }
  try {
    return { path: await realpath(candidate), exists: true };
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
  const missing: string[] = [];
  let ancestor = candidate;
  let realAncestor: string;
  for (;;) {
    const parent = dirname(ancestor);
    if (parent === ancestor) throw Object.assign(new Error("no existing ancestor"), { code: "ENOENT" });
    missing.unshift(basename(ancestor));
    ancestor = parent;
    try {
      realAncestor = await realpath(ancestor);
      break;
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
  }
  const first = join(realAncestor, missing[0] as string);
  let stats: Stats;
  try {
    stats = await lstat(first);
  } catch (error) {
    if (!isMissing(error)) throw error;
    return { path: join(realAncestor, ...missing), exists: false };
  }
  if (stats.isSymbolicLink()) {
    // realAncestor holds no symlinks, so resolving the target against it lexically is exact.
    const target = await readlink(first);
    return realPathOf(resolve(realAncestor, target, ...missing.slice(1)), hops + 1);
  }
  // The component appeared between the two lookups: look again.
  return realPathOf(candidate, hops + 1);
}

/** Whether an open handle still refers to a file inside the workspace; see the module comment. */
async function openedInside(handle: FileHandle, target: WorkspacePath): Promise<boolean> {
  if (process.platform === "linux") {
    let opened: string | undefined;
    try {
      opened = await readlink(`/proc/self/fd/${handle.fd}`);
    } catch {
      opened = undefined;
    }
    if (opened?.startsWith("/")) return isInside(target.realRoot, opened.replace(/ \(deleted\)$/, ""));
  }
  const [openedStats, pathStats, again] = await Promise.all([
    handle.stat(),
    stat(target.realPath),
    realpath(target.realPath),
  ]);
  return (
    again === target.realPath &&
    isInside(target.realRoot, again) &&
    openedStats.dev === pathStats.dev &&
    openedStats.ino === pathStats.ino
  );
}
