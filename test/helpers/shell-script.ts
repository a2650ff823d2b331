// Runs a script through shell.run the way the sandbox tests need it: written to a file in the
// workspace and run as `sh .script.sh`, so the classifier cannot see into it (it rates the line
// write, never destructive) and what stops the script is the sandbox alone.

import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ToolContext } from "../../src/registry/define-tool.js";
import { createShellTool, type ShellRunResult, type ShellToolOptions } from "../../src/builtins/shell-tool.js";

/** The context of a direct call (no program, never aborted). */
export const DIRECT_CONTEXT: ToolContext = {
  signal: new AbortController().signal,
  callId: "c1",
  caller: "direct",
  programId: undefined,
};

/** Writes `script` to `<workspace>/.script.sh` and runs `sh .script.sh` with a shell tool made of `options`. */
export async function runScript(
  workspace: string,
  script: string,
  options: Partial<ShellToolOptions> = {},
): Promise<ShellRunResult> {
  await writeFile(join(workspace, ".script.sh"), script);
  return createShellTool({ workspace, ...options }).execute({ command: "sh .script.sh" }, DIRECT_CONTEXT);
}
