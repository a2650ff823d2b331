// Why a user's tool module did not load, in one line a person can act on: the module's own file
// and position where one is known (a syntax error), never a stack, a require chain, or a path
// inside this package (the loader's own file is noise to the user and leaks the install layout).

import { isAbsolute, relative } from "node:path";
import { fileURLToPath } from "node:url";

// src/sources/ in a checkout, dist/src/sources/ when built: the package's root is two or three up.
const PACKAGE_ROOT = fileURLToPath(
  new URL(import.meta.url.includes("/dist/src/") ? "../../../" : "../../", import.meta.url),
);

interface EsbuildMessage {
  readonly text?: unknown;
  readonly location?: { readonly file?: unknown; readonly line?: unknown; readonly column?: unknown } | null;
}

/** One line: what went wrong loading `specifier` (`error` is what its import threw). */
export function describeModuleLoadProblem(error: unknown, cwd: string): string {
  const shown = (path: string): string => {
    const local = path.startsWith("file://") ? fileURLToPath(path) : path;
    return isAbsolute(local) && !local.startsWith(PACKAGE_ROOT) ? relative(cwd, local) || local : local;
  };
  // tsx reports a TypeScript syntax error as esbuild's: structured, with the file and a 0-based column.
  const first = (error as { errors?: readonly EsbuildMessage[] } | null)?.errors?.[0];
  if (first !== undefined && typeof first.text === "string") {
    const location = first.location;
    const where =
      location !== null && location !== undefined && typeof location.file === "string"
        ? `${shown(location.file)} line ${String(location.line)}, column ${Number(location.column) + 1}: `
        : "";
    return `${where}${first.text}`;
  }
  const message = error instanceof Error ? error.message : String(error);
  // The same error after it crossed from tsx's loader thread: only its text is left.
  const transform = /^(.+?):(\d+):(\d+): ERROR: (.+)$/m.exec(message);
  if (message.startsWith("Transform failed") && transform !== null) {
    return `${shown(transform[1]!)} line ${transform[2]}, column ${Number(transform[3]) + 1}: ${transform[4]}`;
  }
  let line = (message.split("\n")[0] ?? "").trim();
  // Node names the importing file: here that is this package's loader, not anything of the user's.
  line = line.replace(/ imported from \S+$/, "");
  // A syntax error in plain JavaScript carries its position only in the stack's first line.
  const position = error instanceof SyntaxError ? /^(file:\/\/\S+|\/\S+):(\d+)\n/.exec(error.stack ?? "") : null;
  if (position !== null) line = `${shown(position[1]!)} line ${position[2]}: ${line}`;
  // Whatever still names a file inside this package is shown relative to the package, by name.
  line = line.split(PACKAGE_ROOT).join("switchyard-runtime/");
  return line.replace(/'(\/[^']+)'/g, (_match, path: string) => `'${shown(path)}'`);
}
